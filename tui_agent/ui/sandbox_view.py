"""The command sandbox in the app: the status line's sandbox (warning colour when commands run
unconfined or a protection is missing), switching the mode and the network for
this session, and "Sandbox: what is protected" (what ``tui-agent doctor`` finds, for the
session's own policy)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..sandbox.policy import SandboxMode, SandboxPolicy
from ..sandbox.protections import approval_warning, report
from .widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from ..agent.calls import CallRunner
    from ..stream.turn import ToolCall
    from .shell import Shell


def status_label(policy: SandboxPolicy) -> str:
    if not policy.confined:
        return "OFF"
    return policy.mode.value + (" +net" if policy.network else "")


def _runner(app: Shell) -> CallRunner | None:
    return None if app.host is None else app.host.agent.calls


def show_sandbox(app: Shell) -> None:
    """Put the session's sandbox on the status line (the machine's protections are probed once,
    in a thread)."""
    runner = _runner(app)
    if runner is None:
        return
    policy = runner.context.sandbox

    async def show() -> None:
        caps = await asyncio.to_thread(lambda: runner.gate.caps)
        # The probe may end after the app began to close (its widgets gone): nothing to show.
        for status in app.query(StatusBar):
            status.sandbox = status_label(policy)
            status.sandbox_warning = bool(approval_warning(policy, caps))

    app.run_worker(show(), group="sandbox-status", exclusive=True)


def set_sandbox(app: Shell, mode: SandboxMode | None, network: bool | None) -> None:
    """This session's commands run under ``mode`` / ``network`` from now on (a call approved
    under the old one is refused: the approval binds it)."""
    runner = _runner(app)
    if runner is None:
        return
    policy = runner.context.sandbox.with_mode(mode, network)
    runner.set_sandbox(policy)
    show_sandbox(app)
    warning = approval_warning(policy, runner.gate.caps) if not policy.confined else ""
    text = f"sandbox for this session: {policy.label()}" + (f" · {warning}" if warning else "")
    app.notify(text, severity="warning" if not policy.confined else "information", markup=False)


def protection_report(app: Shell) -> str:
    runner = _runner(app)
    if runner is None:
        return "no session is open"
    return report(runner.context.sandbox, runner.gate.caps)


def open_report(app: Shell) -> None:
    from .screens.sandbox_report import SandboxReport

    app.push_screen(SandboxReport(protection_report(app)))


def rerun_blocked(app: Shell) -> None:
    """F6: the last command whose result says the sandbox blocked it, asked again (a new
    approval that shows it and "UNCONFINED") and, if approved, run once with the sandbox off; its
    result goes to the model with the next message (see agent.rerun)."""
    from ..agent.rerun import blocked_call

    host = app.host
    if host is None:
        return
    call = blocked_call(host.agent.messages)
    if call is None:
        app.notify("no command result says the sandbox blocked it", severity="warning")
        return
    app.busy = True  # nothing is sent while the re-run is asked and runs
    app.run_worker(_rerun(app, call), group="sandbox-rerun", exclusive=True)


async def _rerun(app: Shell, call: ToolCall) -> None:
    from ..agent.events import AgentEvent, Notice
    from ..agent.rerun import rerun_unconfined
    from .widgets.transcript import Transcript

    transcript = app.query_one(Transcript)

    def emit(event: AgentEvent) -> None:
        # Its notices are shown as the loop's are: the router is where an event becomes a widget.
        if isinstance(event, Notice) and app.router is not None:
            app.router.handle(event)

    try:
        assert app.host is not None
        done = await rerun_unconfined(app.host.agent.calls, call, emit)
    finally:
        app.busy = False
    if done is None:
        transcript.add_notice(f"{call.name} was not re-run", "info")
        return
    app.host.agent.notes_for_model.append(done.note())
    state = "failed" if done.is_error else "done"
    lines = done.output.splitlines()[-8:]
    text = f"re-ran {call.name} UNCONFINED ({state}); the model sees its output with your next "
    text += "message:\n" + "\n".join(lines)
    transcript.add_notice(text, "warning" if done.is_error else "info")
