"""Messages of a conversation, as the agent keeps them and the providers send them.

An assistant message keeps the raw SSE events it was decoded from: each provider rebuilds its
own native message from them (thinking signatures, encrypted reasoning, thought signatures),
byte-exact. A message from another protocol falls back to its text and calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..stream.turn import ToolCall


@dataclass(frozen=True, slots=True)
class UserMessage:
    text: str


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
