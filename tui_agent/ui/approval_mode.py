"""The approval mode from the app: F3's cycle, the palette, /mode and /plan.

Entering AUTO-ALL asks first (an armed y/n dialog, ``ConfirmAutoAll``); every switch shows on
the status line and says so in a notice. A call waiting for its answer when the mode changes is
decided again under the new one: its prompt closes, and plan mode refuses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from .shell import Shell

MODES = ("ask", "plan", "auto-read", "auto-all")  # F3's cycle; plan: see approval/plan.py


def cycle_mode(app: Shell) -> None:
    """F3: the next mode of ``MODES`` (ask when the current one is not among them)."""
    if app.host is None:
        return
    current = str(app.host.policy.mode)
    mode = MODES[(MODES.index(current) + 1) % len(MODES)] if current in MODES else "ask"
    set_approval_mode(app, mode)


def set_approval_mode(app: Shell, mode: str, *, confirmed: bool = False) -> None:
    """Switch the approval mode; entering AUTO-ALL asks first (an armed y/n dialog)."""
    if app.host is None:
        return
    from ..approval.policy import ApprovalMode

    current = str(app.host.policy.mode)
    if mode == "auto-all" and current != mode and not confirmed:
        from .screens.confirm_auto_all import ConfirmAutoAll

        if isinstance(app.screen, ConfirmAutoAll):
            return

        def answered(yes: bool | None) -> None:
            if yes:
                set_approval_mode(app, mode, confirmed=True)
            else:
                app.notify(f"approval mode stays {current}")

        app.push_screen(ConfirmAutoAll(current), answered)
        return

    app.host.policy.mode = ApprovalMode(mode)
    app.query_one(StatusBar).mode = mode
    if mode != current:
        # A call waiting for its answer is decided again under the new mode (calls.py), a
        # subagent's too (agent/subagent.py).
        app.host.agent.calls.mode_changed()
        if app.host.delegation is not None:
            app.host.delegation.mode_changed()
    app.notify(
        f"approval mode: {mode}", severity="warning" if mode == "auto-all" else "information"
    )
