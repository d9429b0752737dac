"""Messages of a conversation, as the agent keeps them and the providers send them.

An assistant message keeps the raw SSE events it was decoded from: each provider rebuilds its
own native message from them (thinking signatures, encrypted reasoning, thought signatures),
byte-exact. A message from another protocol falls back to its text and calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..stream.turn import ToolCall


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file's text the person attached to a message (@path): sent as a text block of it."""

    path: str  # relative to the workspace, '/'-separated
    text: str
    truncated: bool = False  # only the start of the file

    def block(self) -> str:
        path = self.path.replace("\\", "\\\\").replace('"', '\\"')
        cut = ' truncated="true"' if self.truncated else ""
        return f'<attached_file path="{path}"{cut}>\n{self.text}\n</attached_file>'


@dataclass(frozen=True, slots=True)
class UserMessage:
    text: str  # what the person wrote, and only that
    attachments: tuple[Attachment, ...] = ()
    # What the app tells the model with this message, from the tool side (an unconfined
    # re-run's result, agent/rerun.py): sent before the text, never shown as the person's.
    notes: tuple[str, ...] = ()

    def blocks(self) -> list[str]:
        """The text blocks the model receives: the notes, the message, each attached file."""
        return [*self.notes, self.text, *(attachment.block() for attachment in self.attachments)]


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    protocol: str
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    response_id: str | None = None
    raw: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # (event, data)


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    call_id: str
    name: str
    output: str
    is_error: bool = False


Message = UserMessage | AssistantMessage | ToolResultMessage
