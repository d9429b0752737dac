"""Plan mode in the app: /plan turns it on, and off again back to the mode it replaced.

F3 reaches it too (ask → plan → auto-read → AUTO-ALL), and the palette's "Approval mode: plan";
the status line says PLAN. What it does to requests and calls: tui_agent/approval/plan.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell import Shell


def toggle_plan(app: Shell, arguments: str = "") -> None:
    """/plan: plan mode on; when it is on, back to the mode before it (AUTO-ALL asks again)."""
    if app.host is None:  # the actions' table waits for the session
        return
    current = str(app.host.policy.mode)
    if current == "plan":
        before, app.mode_before_plan = app.mode_before_plan, None
        app.set_approval_mode(before or "ask")
        return
    app.mode_before_plan = current
    app.set_approval_mode("plan")
