"""What the demo model says in one response: the brain writes it, the wire renders it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """One tool call: the id the model issues, the tool's name and the complete argument JSON."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Script:
    """One response, before it is cut into chunks.

    ``interleave``: the calls' argument fragments alternate on the wire (index 0, 1, 0, 1, ...).
    ``cut``: the connection closes part-way through the calls' arguments, before the
    finish_reason and ``[DONE]``, as a provider that drops the stream would.
    """

    text: str
    calls: tuple[ScriptedCall, ...] = ()
    interleave: bool = False
    cut: bool = False

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.calls else "stop"
