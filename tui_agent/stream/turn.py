"""What a stream becomes: exactly one complete Turn or one TruncatedTurn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call from a complete turn: its whole argument string, not yet parsed or validated.

    ``synthetic_id`` is true when the provider sent no id and we made one; such an id is
    never sent back to the provider as if it had issued it.
    """

    id: str
    name: str
    arguments: str
    synthetic_id: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A call that was announced in a turn that never completed. It has no arguments."""

    id: str
    name: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}


@dataclass(frozen=True, slots=True)
class Turn:
    """A turn whose terminal event arrived and which ended normally. Only its calls may run."""

    text: str
    reasoning: str
    tool_calls: tuple[ToolCall, ...]
    stop_reason: str | None
    usage: dict[str, Any] | None
    response_id: str | None = None

    outcome: Literal["complete"] = "complete"

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": "complete",
            "reason": None,
            "stop_reason": self.stop_reason,
            "text": self.text,
            "reasoning": self.reasoning,
            "tool_calls": [call.to_dict() for call in self.tool_calls],
            "pending_calls": [],
            "usage": self.usage,
            "error": None,
        }


TruncationReason = Literal["cut", "length", "error", "filtered", "incomplete", "limit"]


@dataclass(frozen=True, slots=True)
class TruncatedTurn:
    """A turn that ended before or without a normal terminal event. Nothing of it may run."""

    reason: TruncationReason
    text: str
    reasoning: str
    pending_calls: tuple[PendingCall, ...]
    stop_reason: str | None
    usage: dict[str, Any] | None
    error: str | None
    response_id: str | None = None

    outcome: Literal["truncated"] = "truncated"

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": "truncated",
            "reason": self.reason,
            "stop_reason": self.stop_reason,
            "text": self.text,
            "reasoning": self.reasoning,
            "tool_calls": [],
            "pending_calls": [call.to_dict() for call in self.pending_calls],
            "usage": self.usage,
            "error": self.error,
        }

    def describe(self) -> str:
        """One line for the user: why this turn was dropped."""
        why = {
            "cut": "the stream ended before the provider finished the turn",
            "length": "the model hit its output limit",
            "error": "the provider reported an error",
            "filtered": "the provider's content filter stopped the turn",
            "incomplete": "the provider ended the turn abnormally",
            "limit": "the turn passed a size limit",
        }[self.reason]
        detail = f": {self.error}" if self.error else ""
        stop = f" (stop reason {self.stop_reason})" if self.stop_reason else ""
        return f"Turn discarded, {why}{stop}{detail}"


TurnResult = Turn | TruncatedTurn
