"""The records of a session file: one JSON object per line, each with a ``type``.

The conversation is rebuilt from these alone. A truncated turn leaves a ``truncated`` record
(a diagnostic, never an assistant turn, never sent to a model). Raw provider events are kept as
(seconds since the request was sent, SSE event name, data) so replay runs them through the same
decoder at the recorded pace.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT_VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    ts: float = 0.0  # wall-clock time the record was written (epoch seconds)


class RawEvent(BaseModel):
    """One SSE event as received: its time since the request, its name and its data."""

    model_config = ConfigDict(frozen=True)

    t: float
    event: str
    data: str


class HeaderRecord(_Record):
    type: Literal["header"] = "header"
    version: int = FORMAT_VERSION
    id: str
    created: float
    profile: str
    protocol: str
    model: str
    workspace: str
    title: str | None = None


class UserRecord(_Record):
    type: Literal["user"] = "user"
    text: str


class ToolCallRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    arguments: str
    synthetic_id: bool = False


class AssistantRecord(_Record):
    """A complete turn: what the model said and asked for, and the raw events it came from."""

    type: Literal["assistant"] = "assistant"
    protocol: str
    model: str
    text: str
    reasoning: str
    tool_calls: list[ToolCallRecord]
    stop_reason: str | None
    usage: dict[str, Any] | None
    response_id: str | None
    raw: list[RawEvent]


class TruncatedRecord(_Record):
    """A turn that ended early: why, what was pending, and its raw events. Never resent."""

    type: Literal["truncated"] = "truncated"
    protocol: str
    model: str
    reason: str
    error: str | None
    stop_reason: str | None
    text: str
    pending_calls: list[dict[str, str]]
    raw: list[RawEvent]


class DecisionRecord(_Record):
    """What the user (or a policy) decided for one call, bound to the arguments shown."""

    type: Literal["decision"] = "decision"
    call_id: str
    decision: Literal["approve", "deny", "edit", "cancel", "invalid", "refused"]
    digest: str  # sha256 of the canonical arguments that were shown
    by: Literal["user", "policy", "rule"] = "user"
    reason: str | None = None
    arguments: str | None = None  # the edited arguments, for "edit"


class ToolResultRecord(_Record):
    """The result the model receives for a call. Every call in history gets exactly one."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    output: str
    is_error: bool = False
    status: Literal["done", "failed", "denied", "cancelled", "invalid", "interrupted"] = "done"


class ToolStartRecord(_Record):
    """An approved call began to run (so a crash before its result is visible on resume)."""

    type: Literal["tool_start"] = "tool_start"
    call_id: str
    digest: str


class WithdrawRecord(_Record):
    """The user withdrew their last message (its turn never completed)."""

    type: Literal["withdraw"] = "withdraw"


class NoteRecord(_Record):
    """Something the user was told that belongs to the history (a notice, a rename)."""

    type: Literal["note"] = "note"
    kind: str
    text: str


class OfferedTool(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    schema_hash: str  # SHA-256 of the canonical JSON of its description and input schema


class ToolListRecord(_Record):
    """The tools every request offers from here on, until the next such record."""

    type: Literal["tools"] = "tools"
    tools: list[OfferedTool]


Record = Annotated[
    HeaderRecord
    | UserRecord
    | AssistantRecord
    | TruncatedRecord
    | DecisionRecord
    | ToolResultRecord
    | ToolStartRecord
    | WithdrawRecord
    | NoteRecord
    | ToolListRecord,
    Field(discriminator="type"),
]
