"""The normalized vocabulary a protocol decoder speaks to the turn assembler.

Every wire protocol is turned into these few events. They are treated as immutable but not
declared frozen: a frozen dataclass costs 2-3x more to build, and one is built per delta on the
hottest path there is (bench/assemble_bench.py). ``key`` is the protocol's own call key
(item id, block index, choice and tool index, step index): buffers are kept per key, so
interleaved parallel calls never mix. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class TextDelta:
    """Visible assistant text, as streamed."""

    text: str


@dataclass(slots=True)
class ReasoningDelta:
    """Reasoning or thinking text, as streamed."""

    text: str


@dataclass(slots=True)
class ResponseIdentified:
    """The provider's id for this response (or a digest of its first event when it sends none)."""

    response_id: str


@dataclass(slots=True)
class ToolCallStarted:
    """A client-side tool call was announced. Repeats for a known key only fill in blanks."""

    key: Hashable
    call_id: str
    name: str


@dataclass(slots=True)
class ToolArgumentsDelta:
    """A fragment of a call's argument string, appended to that call's hidden buffer."""

    key: Hashable
    fragment: str


@dataclass(slots=True)
class ToolArgumentsFinal:
    """The complete argument string, from an event that carries it whole; it wins over deltas."""

    key: Hashable
    arguments: str


@dataclass(slots=True)
class ToolArgumentsProgress:
    """Argument bytes received where they do not arrive as a string (Vertex partialArgs)."""

    key: Hashable
    size: int


@dataclass(slots=True)
class ToolCallClosed:
    """The provider closed the call's block. Its arguments are still not usable before TurnEnd."""

    key: Hashable


@dataclass(slots=True)
class UsageReported:
    """A usage object exactly as the provider sent it; the turn's pieces are merged by field."""

    usage: dict[str, Any]


@dataclass(slots=True)
class StreamFailure:
    """The provider reported an error mid-stream, or the stream broke the protocol."""

    # "error" (the provider said so), "protocol" (we could not make sense of it), or "limit"
    # (the turn grew past max_turn_events or max_turn_bytes: reason "limit", not "error").
    kind: str
    message: str


@dataclass(slots=True)
class StopReasonSeen:
    """Why the provider stops, sent ahead of its terminal event (finish_reason, message_delta)."""

    stop_reason: str


@dataclass(frozen=True, slots=True)
class ServerToolUsed:
    """A tool the provider ran itself (its web search, Google Search grounding): nothing runs
    here. ``detail`` is what it was asked (the queries, a URL), as the provider sent it."""

    name: str
    detail: str


@dataclass(slots=True)
class TurnEnd:
    """The protocol's terminal event was decoded.

    ``stop_reason`` is the provider's value as sent. ``lax`` marks a server that sent no stop
    reason at all: the turn then counts as complete only if every call's arguments parse.
    """

    stop_reason: str | None
    lax: bool = False


StreamEvent = (
    TextDelta
    | ReasoningDelta
    | ResponseIdentified
    | ToolCallStarted
    | ToolArgumentsDelta
    | ToolArgumentsFinal
    | ToolArgumentsProgress
    | ToolCallClosed
    | UsageReported
    | StreamFailure
    | StopReasonSeen
    | ServerToolUsed
    | TurnEnd
)
