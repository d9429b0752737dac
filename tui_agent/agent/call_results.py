"""What a round of calls gives back, and how each decision and result is recorded.

Every call gets exactly one decision record (and a ``CallDecided`` event unless it was invalid)
and exactly one result: capped for the model, recorded with its status, told to the UI
(``ToolFinished``). ``calls.py`` decides when; this module says what is written and shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..call_outcome import CallStatus, DecidedBy, DecisionKind
from ..conversation import ImagePart
from ..images.store import stored
from ..session.records import DecisionRecord, ToolResultRecord
from ..stream.turn import ToolCall
from .events import AgentEvent, CallDecided, Notice, ToolFinished
from .recorder import SessionRecorder

Emit = Callable[[AgentEvent], None]
CANCELLED = "cancelled by user"
# Esc while a tool runs: the issue asks for "cancelled by user"; the status says interrupted.
INTERRUPTED = "cancelled by user while it was running (stopped)"


def edited_note(canonical: str) -> str:
    """What precedes an edited call's result, so the model knows what really ran."""
    return f"[the user edited the arguments before approving: {canonical}]\n"


@dataclass(frozen=True, slots=True)
class CallResult:
    call: ToolCall
    output: str
    is_error: bool
    status: CallStatus
    images: tuple[ImagePart, ...] = ()


@dataclass
class CallRound:
    """The outcome of one turn's calls, in the order the model announced them."""

    results: list[CallResult]
    cancelled: bool = False
    asked_user: bool = False


def cap_output(text: str, limit: int) -> str:
    """Tool output sent to the model is capped, with a note saying how much was cut.

    The first three quarters of the budget come from the start and the rest from the end, so the
    model still sees how a long command ended (its exit code, a timeout or cap note).
    """
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    tail_bytes = limit // 4
    head = data[: limit - tail_bytes].decode("utf-8", "ignore")
    tail = data[len(data) - tail_bytes :].decode("utf-8", "ignore") if tail_bytes else ""
    note = f"[output cut: {len(data) - limit} of {len(data)} bytes not shown]"
    return f"{head}\n{note}\n{tail}" if tail else f"{head}\n{note}"


def record_decision(
    recorder: SessionRecorder,
    call: ToolCall,
    kind: DecisionKind,
    *,
    digest: str,
    by: DecidedBy,
    emit: Emit,
    reason: str | None = None,
    arguments: str | None = None,
) -> None:
    """Record the decision, bound to ``digest``; tell the UI unless the call was invalid."""
    recorder.append(
        DecisionRecord(
            ts=time.time(),
            call_id=call.id,
            decision=kind,
            digest=digest,
            by=by,
            reason=reason,
            arguments=arguments,
        )
    )
    if kind != "invalid":
        emit(CallDecided(call.id, call.name, kind, by, reason, arguments))


def record_result(
    recorder: SessionRecorder,
    call: ToolCall,
    text: str,
    status: CallStatus,
    emit: Emit,
    *,
    cap: int,
    fit: Callable[[str], str] | None = None,
    images: tuple[ImagePart, ...] = (),
) -> CallResult:
    """The call's one result: capped (then ``fit`` to the window), recorded (its images kept in
    the store), told to the UI, and returned to be kept for the model (an error unless done)."""
    is_error = status != "done"
    output = cap_output(text, cap)
    if fit is not None:
        output = fit(output)
    if (warning := recorder.keep_images(images)) is not None:
        emit(Notice(warning, "warning"))
    recorder.append(
        ToolResultRecord(
            ts=time.time(),
            call_id=call.id,
            name=call.name,
            output=output,
            is_error=is_error,
            status=status,
            images=[stored(image) for image in images],
        ),
        sync=True,
    )
    emit(ToolFinished(call.id, call.name, status, output, is_error, images))
    return CallResult(call, output, is_error, status, images)
