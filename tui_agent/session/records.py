"""The records of a session file: one JSON object per line, each with a ``type``.

The conversation is rebuilt from these alone. A truncated turn leaves a ``truncated`` record
(a diagnostic, never an assistant turn, never sent to a model). Raw provider events are kept as
(seconds since the request was sent, SSE event name, data) so replay runs them through the same
decoder at the recorded pace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..call_outcome import CallStatus, DecidedBy, DecisionKind

FORMAT_VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    ts: float = 0.0  # wall-clock time the record was written (epoch seconds)


@dataclass(frozen=True, slots=True)
class RawEvent:
    """One SSE event as received: its time since the request, its name and its data.

    A plain slotted dataclass, not a pydantic model: a turn may keep 200,000 of them, and a model
    instance costs about six times as much (~510 bytes against ~90). Pydantic still reads and
    writes it as ``{"t": ..., "event": ..., "data": ...}`` inside a record.
    """

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
    # Where an ad-hoc profile (--protocol/--base-url) talked, so a resume talks there again.
    base_url: str | None = None
    api_key_env: str | None = None


def _without(data: Any, key: str, empty: Any) -> dict[str, Any]:
    """``data`` without ``key`` when it holds ``empty``."""
    assert isinstance(data, dict)
    if key in data and data[key] == empty:
        del data[key]
    return data


class StoredImage(BaseModel):
    """An image sent to the model, kept in the data folder's image store under its SHA-256
    (images/store.py): the session file names it, never holds its bytes."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    digest: str  # hex SHA-256 of the bytes sent
    media_type: str
    width: int
    height: int
    size: int  # bytes sent
    scaled: bool = False


class AttachedFile(BaseModel):
    """A file attached to a user message (@path), as the model received it: its text, or an
    image (then ``text`` is empty)."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    path: str  # relative to the workspace, '/'-separated
    text: str
    truncated: bool = False
    image: StoredImage | None = None  # left out of the line when None: text lines as before

    @model_serializer(mode="wrap")
    def _lean(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without(handler(self), "image", None)


class UserRecord(_Record):
    type: Literal["user"] = "user"
    text: str
    attachments: list[AttachedFile] = Field(default_factory=list)  # absent in older sessions
    # Tool-side notes sent with the message (an unconfined re-run's result): not its text.
    notes: list[str] = Field(default_factory=list)


class ToolCallRecord(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

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
    decision: DecisionKind
    digest: str  # sha256 of the canonical arguments that were shown
    by: DecidedBy = "user"
    reason: str | None = None
    arguments: str | None = None  # the edited arguments, for "edit"


class ToolResultRecord(_Record):
    """The result the model receives for a call. Every call in history gets exactly one."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    output: str
    is_error: bool = False
    status: CallStatus = "done"
    images: list[StoredImage] = Field(default_factory=list)  # returned by the tool

    @model_serializer(mode="wrap")
    def _lean(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without(handler(self), "images", [])  # a result without images as before


class ToolStartRecord(_Record):
    """An approved call began to run (so a crash before its result is visible on resume)."""

    type: Literal["tool_start"] = "tool_start"
    call_id: str
    digest: str


class HookRecord(_Record):
    """A hook ran (see hooks/): its moment, the call it was about ("" for none), its verdict."""

    type: Literal["hook"] = "hook"
    event: str
    hook: str
    call_id: str = ""
    verdict: str
    seconds: float = 0.0
    reason: str = ""
    source: str = "config"


class WithdrawRecord(_Record):
    """The user withdrew their last message (its turn never completed)."""

    type: Literal["withdraw"] = "withdraw"


class NoteRecord(_Record):
    """Something the user was told that belongs to the history (a notice, a rename).

    A ``compaction_failed`` note also keeps the billed request behind it (a compaction whose
    summary came back but was not applied): its protocol, model and usage, which a resumed
    session's cost and ``sessions --json`` count as the live session did."""

    type: Literal["note"] = "note"
    kind: str
    text: str
    # Written only when set: every other note's line is as it always was.
    protocol: str = Field(default="", exclude_if=lambda value: not value)
    model: str = Field(default="", exclude_if=lambda value: not value)
    usage: dict[str, Any] | None = Field(default=None, exclude_if=lambda value: value is None)


class OfferedTool(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    schema_hash: str  # SHA-256 of the canonical JSON of its description and input schema


class ToolListRecord(_Record):
    """The tools every request offers from here on, until the next such record."""

    type: Literal["tools"] = "tools"
    tools: list[OfferedTool]


class CapturedFile(BaseModel):
    """One workspace file's state as a checkpoint saw it (never through a symlink).

    ``kind``: missing, file, symlink, other (a folder, a FIFO: never restored) or uncovered (not
    captured: over the size limit, unreadable). ``digest`` says where the content is kept:
    ``sha256:HEX`` in the checkpoint folder's blob store, ``git:SHA1`` in its shadow repository
    (a symlink's content is its target). ``folders``: missing folders a write would create.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    path: str  # relative to the workspace, '/'-separated
    kind: Literal["missing", "file", "symlink", "other", "uncovered"]
    mode: int = 0  # permission bits
    size: int = 0
    digest: str = ""
    folders: list[str] = Field(default_factory=list)


class CheckpointRecord(_Record):
    """What an approved call may change, captured just before it ran.

    ``method``: file (write_file, edit_file: the file's exact state) or snapshot (a command or
    another tool: a tree of the shadow repository). ``store`` names the workspace's checkpoint
    folder in the data folder. ``notice`` says what is not covered; ``error`` why nothing was.
    """

    type: Literal["checkpoint"] = "checkpoint"
    call_id: str
    tool: str
    method: Literal["file", "snapshot"]
    store: str
    files: list[CapturedFile] = Field(default_factory=list)
    tree: str | None = None
    modes: str | None = None  # a blob of what the tree does not keep: exact modes, paths left out
    notice: str | None = None
    error: str | None = None


class CheckpointDoneRecord(_Record):
    """The same files (or tree) right after the call: what a rewind expects to find."""

    type: Literal["checkpoint_done"] = "checkpoint_done"
    call_id: str
    files: list[CapturedFile] = Field(default_factory=list)
    tree: str | None = None
    modes: str | None = None
    error: str | None = None


class RewoundFile(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    before: CapturedFile  # as it was when the rewind ran (kept, so the rewind can be undone)
    after: CapturedFile  # what the rewind put there


class RewindRecord(_Record):
    """Files a rewind changed, with their states before and after: a rewind can be undone."""

    type: Literal["rewind"] = "rewind"
    id: str
    to: int | None = None  # the message rewound to; None for an undo
    undoes: str | None = None  # the id of the rewind this one undid
    store: str
    files: list[RewoundFile] = Field(default_factory=list)
    session: str | None = None  # the fork that holds the rewound conversation


class CompactionRecord(_Record):
    """The conversation was compacted: ``summary`` stands for its first ``replaced`` messages
    (as the conversation is rebuilt from these records), out of the ``at`` it held then. The
    records before it stay: the transcript, replay, export and a fork before it show them all.
    """

    type: Literal["compaction"] = "compaction"
    summary: str
    replaced: int
    at: int
    tokens_before: int
    tokens_after: int
    reason: str = "manual"  # manual | auto | overflow
    protocol: str = ""
    model: str = ""
    usage: dict[str, Any] | None = None  # of the request that wrote the summary


class SubagentRecord(_Record):
    """A record of a subagent's own conversation (its message, turns, decisions, results,
    hooks), under the task call that started it: the conversation is rebuilt without it, and
    resume, export and replay show it nested under that call. A subagent's checkpoints are
    the session's own records (a rewind undoes what it wrote too)."""

    type: Literal["subagent"] = "subagent"
    call_id: str  # the task call's
    agent: str
    record: InnerRecord


InnerRecord = Annotated[
    UserRecord
    | AssistantRecord
    | TruncatedRecord
    | DecisionRecord
    | ToolResultRecord
    | ToolStartRecord
    | HookRecord
    | NoteRecord
    | ToolListRecord
    | CompactionRecord
    | SubagentRecord,
    Field(discriminator="type"),
]

Record = Annotated[
    HeaderRecord
    | UserRecord
    | AssistantRecord
    | TruncatedRecord
    | DecisionRecord
    | ToolResultRecord
    | ToolStartRecord
    | HookRecord
    | WithdrawRecord
    | NoteRecord
    | ToolListRecord
    | CheckpointRecord
    | CheckpointDoneRecord
    | RewindRecord
    | CompactionRecord
    | SubagentRecord,
    Field(discriminator="type"),
]
