"""A saved session as a script: the events the app saw, in order, each with the pause before it.

Every turn's recorded provider events (``RawEvent``: seconds since the request, SSE event name,
data) go through the same decoder and assembler as a live response (``TurnReader.feed_event``),
so text, reasoning, "preparing tool" announcements and argument byte counts come back as they
streamed, at the pace they were received. The records between turns become what the loop
emitted then: the user's message, each call's decision, the start and the result of what ran.

A task call's subagent records (``SubagentRecord``) become its events as the loop told them,
each a ``SubagentEvent`` under the task call (its message is not shown: the task's arguments
hold it).

Pauses between records (a person reading or deciding, a tool running) are taken from the
records' wall-clock times and kept up to ``MAX_PAUSE_S``; the pace inside a stream is exact.
Nothing here runs a tool, sends a request or writes a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from ..acp_client.updates import PROTOCOL as ACP_PROTOCOL
from ..acp_client.updates import replayed_step
from ..agent.events import (
    AgentEvent,
    CallDecided,
    CallInvalid,
    HookFinished,
    Notice,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
)
from ..agent.rerun import SUFFIX as RERUN_SUFFIX
from ..context.resume import compacted_event
from ..images.records import record_label
from ..providers import UnknownProtocolError, tokens_used
from ..session.records import (
    AssistantRecord,
    CompactionRecord,
    DecisionRecord,
    HookRecord,
    NoteRecord,
    RawEvent,
    SubagentRecord,
    ToolResultRecord,
    ToolStartRecord,
    TruncatedRecord,
    UserRecord,
    WithdrawRecord,
)
from ..stream.events import ReasoningDelta, TextDelta
from ..stream.progress import ToolCallAnnounced
from ..stream.turn import PendingCall, ToolCall, TruncatedTurn, TruncationReason, Turn
from ..turn_reader import TurnReader

MAX_PAUSE_S = 2.0  # longest pause kept between records (a stream's own pace is never cut)
_REASONS = ("cut", "length", "error", "filtered", "incomplete", "limit")
WITHDRAWN = "you withdrew the message above; it was never answered"
REBUILT = "the recorded provider events do not rebuild this turn exactly; it is shown as saved"
NO_EVENTS = "no provider events were recorded for this turn; it is shown as saved"


@dataclass(frozen=True, slots=True)
class UserSent:
    """The user sent this message (the app shows it as it was sent)."""

    text: str
    attached: tuple[str, ...] = ()  # what went with it: "shot.png (PNG 640x480, 12.0 KB)"


ReplayEvent = AgentEvent | UserSent


@dataclass(frozen=True, slots=True)
class Step:
    """One event to show, after ``delay`` recorded seconds (the player divides by its speed)."""

    delay: float
    event: ReplayEvent


@dataclass(frozen=True)
class ReplayScript:
    steps: tuple[Step, ...]

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    @property
    def duration(self) -> float:
        """Recorded seconds from the first step to the last, at speed 1."""
        return sum(step.delay for step in self.steps)

    @classmethod
    def from_records(cls, records: Iterable[Any], problems: Iterable[str] = ()) -> ReplayScript:
        """The script of a session's records (``LoadedSession.records``, file order).

        ``problems`` (what the loader skipped) are shown first, as warnings.
        """
        builder = _Builder()
        for problem in problems:
            builder.add(Notice(f"session file: {problem}", "warning"))
        for record in records:
            builder.record(record)
        return cls(tuple(builder.steps))


@dataclass
class _Builder:
    steps: list[Step] = field(default_factory=list)
    last_ts: float | None = None  # wall-clock time of the previous record
    owed: float = 0.0  # delay of events that showed nothing, carried to the next step
    names: dict[str, str] = field(default_factory=dict)  # call id -> tool name
    turn_step: int = 0
    subagents: dict[str, _Builder] = field(default_factory=dict)  # task call id -> its own

    def add(self, event: ReplayEvent, delay: float = 0.0) -> None:
        self.steps.append(Step(round(self.owed + max(0.0, delay), 6), event))
        self.owed = 0.0

    def pause_until(self, ts: float) -> float:
        """The pause between the previous record and ``ts`` (capped); ``ts`` becomes the last."""
        if ts <= 0:
            return 0.0
        pause = 0.0 if self.last_ts is None else min(MAX_PAUSE_S, max(0.0, ts - self.last_ts))
        self.last_ts = ts
        return pause

    def record(self, record: Any) -> None:
        if isinstance(record, UserRecord):
            self.turn_step = 0
            attached = tuple(record_label(a) for a in record.attachments)
            self.add(UserSent(record.text, attached), self.pause_until(record.ts))
        elif isinstance(record, AssistantRecord | TruncatedRecord):
            self.turn(record)
        elif isinstance(record, DecisionRecord):
            self.decision(record)
        elif isinstance(record, ToolStartRecord):
            name = self.name_of(record.call_id)
            self.add(ToolStarted(record.call_id, name), self.pause_until(record.ts))
        elif isinstance(record, ToolResultRecord):
            event = ToolFinished(
                record.call_id, record.name, record.status, record.output, record.is_error
            )
            self.add(event, self.pause_until(record.ts))
        elif isinstance(record, HookRecord):
            hooked = HookFinished(
                record.event,
                record.hook,
                record.call_id,
                record.verdict,
                record.seconds,
                record.reason,
                record.source,
            )
            self.add(hooked, self.pause_until(record.ts))
        elif isinstance(record, WithdrawRecord):
            self.add(Notice(WITHDRAWN, "info"), self.pause_until(record.ts))
        elif isinstance(record, NoteRecord):
            text = f"session renamed: {record.text}" if record.kind == "rename" else record.text
            self.add(Notice(text, "info"), self.pause_until(record.ts))
        elif isinstance(record, CompactionRecord):
            self.add(compacted_event(record), self.pause_until(record.ts))
        elif isinstance(record, SubagentRecord):
            self.subagent(record)

    def subagent(self, record: SubagentRecord) -> None:
        """The subagent's record through a builder of its own, its events wrapped."""
        sub = self.subagents.setdefault(record.call_id, _Builder())
        sub.last_ts, start = self.last_ts, len(sub.steps)
        sub.record(record.record)
        self.last_ts = sub.last_ts
        for step in sub.steps[start:]:
            if isinstance(step.event, UserSent):
                self.owed += step.delay
            else:
                self.add(SubagentEvent(record.call_id, record.agent, step.event), step.delay)
        self.owed += sub.owed
        sub.owed = 0.0

    def name_of(self, call_id: str) -> str:
        """The tool of a call id; an F6 re-run (``ID-unconfined``) is the model's call's tool."""
        return self.names.get(call_id) or self.names.get(call_id.removesuffix(RERUN_SUFFIX), "")

    def decision(self, record: DecisionRecord) -> None:
        name = self.name_of(record.call_id)
        pause = self.pause_until(record.ts)
        if record.decision == "invalid":
            self.add(CallInvalid(record.call_id, name, record.reason or "invalid"), pause)
        else:
            event = CallDecided(record.call_id, name, record.decision, record.by, record.reason)
            self.add(event, pause)

    # -- a turn: its stream at the recorded pace, then its outcome --------------------------

    def turn(self, record: AssistantRecord | TruncatedRecord) -> None:
        self.turn_step += 1
        raw = record.raw
        # The record is written when the stream ends; the request went out raw[-1].t before.
        sent = record.ts - raw[-1].t if raw and record.ts > 0 else record.ts
        self.add(TurnStarted(self.turn_step), self.pause_until(sent))
        if record.ts > 0:
            self.last_ts = record.ts
        streamed = self.stream(record.protocol, raw) if raw else None
        if streamed is None:
            if raw:
                self.add(Notice(f"cannot decode this turn's events ({record.protocol})", "info"))
            elif isinstance(record, AssistantRecord):
                self.add(Notice(NO_EVENTS, "info"))
            self.synthesize(record)
        if isinstance(record, TruncatedRecord):
            turn = truncated_turn(record)
            self.add(TurnTruncated(turn, turn.describe()))
            return
        recorded = complete_turn(record)
        for call in recorded.tool_calls:
            self.names[call.id] = call.name
        if streamed is not None and not _same_turn(streamed, recorded):
            self.add(Notice(REBUILT, "warning"))
            streamed = None
        shown = streamed if isinstance(streamed, Turn) else recorded
        self.add(TurnCompleted(shown, tokens_used(record.protocol, shown.usage)))

    def stream(self, protocol: str, raw: list[RawEvent]) -> Turn | TruncatedTurn | None:
        """Each raw event through the decoder and assembler; None for an unknown protocol."""
        if protocol == ACP_PROTOCOL:  # an ACP agent's updates (acp_client/updates.py)
            shown, turn = replayed_step(raw)
            for delay, progress in shown:
                self.owed += delay
                self.add(cast(AgentEvent, progress))
            return turn
        try:
            reader = TurnReader(protocol)
        except UnknownProtocolError:
            return None
        previous = 0.0
        for event in raw:
            self.owed += max(0.0, event.t - previous)
            previous = max(previous, event.t)
            for progress in reader.feed_event(event.event, event.data):
                self.add(cast(AgentEvent, progress))
        return reader.close()

    def synthesize(self, record: AssistantRecord | TruncatedRecord) -> None:
        """No usable events: what the turn showed, at once."""
        if isinstance(record, AssistantRecord) and record.reasoning:
            self.add(ReasoningDelta(record.reasoning))
        if record.text:
            self.add(TextDelta(record.text))
        calls: list[tuple[str, str]]
        if isinstance(record, AssistantRecord):
            calls = [(c.id, c.name) for c in record.tool_calls]
        else:
            calls = [(c.get("id", ""), c.get("name", "")) for c in record.pending_calls]
        for position, (call_id, name) in enumerate(calls):
            self.add(ToolCallAnnounced(position, call_id, name))


def complete_turn(record: AssistantRecord) -> Turn:
    """The turn as it was saved."""
    return Turn(
        text=record.text,
        reasoning=record.reasoning,
        tool_calls=tuple(
            ToolCall(c.id, c.name, c.arguments, c.synthetic_id) for c in record.tool_calls
        ),
        stop_reason=record.stop_reason,
        usage=record.usage,
        response_id=record.response_id,
    )


def truncated_turn(record: TruncatedRecord) -> TruncatedTurn:
    """The discarded turn as it was saved: its reason and error are the recorded ones."""
    reason = cast(TruncationReason, record.reason if record.reason in _REASONS else "cut")
    pending = tuple(PendingCall(c.get("id", ""), c.get("name", "")) for c in record.pending_calls)
    return TruncatedTurn(
        reason=reason,
        text=record.text,
        reasoning="",
        pending_calls=pending,
        stop_reason=record.stop_reason,
        usage=None,
        error=record.error,
    )


def _same_turn(streamed: Turn | TruncatedTurn, recorded: Turn) -> bool:
    return (
        isinstance(streamed, Turn)
        and streamed.text == recorded.text
        and [c.to_dict() for c in streamed.tool_calls] == [c.to_dict() for c in recorded.tool_calls]
    )
