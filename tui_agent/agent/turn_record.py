"""A finished turn as its session record, and writing that record without holding up the
event loop (redacting a long answer's raw events takes ~0.2 s per 200 KB: the screen catches up
meanwhile)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..session.records import AssistantRecord, RawEvent, ToolCallRecord, TruncatedRecord
from ..stream.turn import Turn, TurnResult
from .recorder import SessionRecorder

TurnRecord = AssistantRecord | TruncatedRecord


def turn_record(result: TurnResult, raw: list[RawEvent], protocol: str, model: str) -> TurnRecord:
    """A complete turn's assistant record; a truncated one's diagnostic record."""
    if isinstance(result, Turn):
        return AssistantRecord(
            ts=time.time(),
            protocol=protocol,
            model=model,
            text=result.text,
            reasoning=result.reasoning,
            tool_calls=[
                ToolCallRecord(
                    id=c.id, name=c.name, arguments=c.arguments, synthetic_id=c.synthetic_id
                )
                for c in result.tool_calls
            ],
            stop_reason=result.stop_reason,
            usage=result.usage,
            response_id=result.response_id,
            raw=raw,
        )
    return TruncatedRecord(
        ts=time.time(),
        protocol=protocol,
        model=model,
        reason=result.reason,
        error=result.error,
        stop_reason=result.stop_reason,
        text=result.text,
        pending_calls=[c.to_dict() for c in result.pending_calls],
        raw=raw,
    )


async def write_off_loop(recorder: SessionRecorder, record: TurnRecord) -> None:
    """Write ``record`` (synced) in a worker thread, awaited to its end even when the caller is
    cancelled meanwhile: no later record overtakes it in the file."""
    await finish_write(start_write(recorder, record))


def start_write(recorder: SessionRecorder, record: TurnRecord) -> asyncio.Future[Any]:
    """``record`` (synced) being written in a worker thread; ``finish_write`` waits for it."""
    return asyncio.ensure_future(asyncio.to_thread(recorder.append, record, sync=True))


async def finish_write(write: asyncio.Future[Any]) -> None:
    """Wait for ``write`` to end, even when the caller is cancelled meanwhile."""
    try:
        await asyncio.shield(write)
    except asyncio.CancelledError:
        await write
        raise
