"""The loop's side of hooks (hooks/): run the hooks of a moment where the session's tools run,
record each verdict and tell it as a ``HookFinished``.

Hooks run in the command sandbox the session's tools run in now (``ToolContext.sandbox``, which
the person may change during the session); ``unconfined`` ones outside it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..hooks import HookEvent, HookOutcome, HookPlace, SessionHooks
from ..hooks.runner import first_line
from ..session.records import HookRecord
from ..tools.spec import ToolContext
from .call_results import Emit
from .events import HookFinished
from .recorder import SessionRecorder


def hook_place(context: ToolContext, base: HookPlace | None = None) -> HookPlace:
    """Where the hooks run for ``context``: its workspace, sandbox, protected folders, secrets."""
    place = HookPlace(
        workspace=context.workspace,
        sandbox=context.sandbox,
        protected=context.protected,
        unprotected=context.unprotected,
        capabilities=context.capabilities,
        secret_values=context.secret_values,
    )
    return place if base is None else replace(place, output_cap=base.output_cap)


def hook_finished(outcome: HookOutcome, call_id: str = "") -> HookFinished:
    return HookFinished(
        str(outcome.event),
        outcome.hook,
        call_id,
        outcome.verdict,
        outcome.seconds,
        outcome.reason,
        outcome.source,
    )


def hook_summary(event: HookFinished) -> str:
    """One line for a person: ``hook NAME (Moment): verdict (reason) · 0.2 s``."""
    line = f"hook {event.hook} ({event.event}): {event.verdict}"
    if event.reason:
        line += f" ({first_line(event.reason)})"
    return f"{line} · {event.seconds:.1f} s"


def hook_record(event: HookFinished) -> HookRecord:
    return HookRecord(
        ts=time.time(),
        event=event.event,
        hook=event.hook,
        call_id=event.call_id,
        verdict=event.verdict,
        seconds=event.seconds,
        reason=event.reason,
        source=event.source,
    )


async def run_hooks(
    hooks: SessionHooks | None,
    context: ToolContext,
    recorder: SessionRecorder,
    emit: Emit,
    event: HookEvent,
    fields: Mapping[str, Any],
    *,
    tool_name: str | None = None,
    call_id: str = "",
) -> list[HookOutcome]:
    """The outcomes of ``event``'s matching hooks, each recorded and told; [] without hooks."""
    if not hooks or not hooks.matching(event, tool_name):
        return []
    hooks.place = hook_place(context, hooks.place)
    outcomes = await hooks.run(event, fields, tool_name)
    for outcome in outcomes:
        finished = hook_finished(outcome, call_id)
        recorder.append(hook_record(finished))
        emit(finished)
    return outcomes
