"""What the assembler publishes upward while a turn streams: only what is safe to show early.

Text and reasoning pass through as they are (TextDelta, ReasoningDelta), and so does a tool the
provider ran itself (ServerToolUsed: nothing of it runs here). For a tool call, only its
position in the turn, provider id, name and a running count of argument bytes: never the fragments.
"""

from __future__ import annotations

from dataclasses import dataclass

from .events import ReasoningDelta, ServerToolUsed, TextDelta


@dataclass(frozen=True, slots=True)
class ToolCallAnnounced:
    """A call appeared (or its id or name became known). ``position`` is stable within the turn."""

    position: int
    call_id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolArgumentsReceived:
    """A running total of argument bytes received for the call at ``position``."""

    position: int
    size: int


@dataclass(frozen=True, slots=True)
class RetryWait:
    """Before a response started: wait ``seconds`` before attempt ``attempt``, because ``why``."""

    seconds: float
    attempt: int
    why: str


Progress = TextDelta | ReasoningDelta | ToolCallAnnounced | ToolArgumentsReceived | ServerToolUsed
