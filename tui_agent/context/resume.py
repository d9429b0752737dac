"""A resumed session's context: the summary in force, what it replaced, and the tokens the
conversation held when last counted, so the count after resuming is the count before quitting."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..conversation import AssistantMessage, Message
from ..providers import tokens_used
from ..session.records import AssistantRecord, CompactionRecord
from .events import Compacted, CompactionReason


@dataclass(frozen=True, slots=True)
class ResumedContext:
    """``summary`` stands for ``messages[:replaced]``; ``base`` tokens were counted when the
    conversation held ``base_at`` messages (None: never counted)."""

    summary: str | None = None
    replaced: int = 0
    base: int | None = None
    base_at: int = 0


def resumed_context(records: Sequence[Any], messages: Sequence[Message]) -> ResumedContext:
    """From the records and the full conversation rebuilt from them."""
    compaction: CompactionRecord | None = None
    last_turn: AssistantRecord | None = None
    turn_after_compaction = False
    for record in records:
        if isinstance(record, CompactionRecord):
            compaction, turn_after_compaction = record, False
        elif isinstance(record, AssistantRecord):
            last_turn, turn_after_compaction = record, True
    summary, replaced = None, 0
    if compaction is not None and 0 < compaction.replaced <= len(messages):
        summary, replaced = compaction.summary, compaction.replaced
    base: int | None = None
    base_at = 0
    if compaction is not None and summary is not None and not turn_after_compaction:
        base, base_at = compaction.tokens_after, min(compaction.at, len(messages))
    elif last_turn is not None and tokens_used(last_turn.protocol, last_turn.usage):
        last = max(
            (i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1
        )
        if last >= replaced:
            base, base_at = tokens_used(last_turn.protocol, last_turn.usage), last + 1
    return ResumedContext(summary, replaced, base, base_at)


def compacted_event(record: CompactionRecord) -> Compacted:
    """A saved compaction as the event the live loop emitted (for replay and the transcript)."""
    reason = record.reason if record.reason in ("manual", "auto", "overflow") else "manual"
    return Compacted(
        cast(CompactionReason, reason),
        record.tokens_before,
        record.tokens_after,
        record.replaced,
        max(0, record.at - record.replaced),
        record.summary,
    )
