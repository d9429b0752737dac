"""/new: close this session and start an empty one in the same workspace, with the same
profile and model (as ``tui-agent`` without ``-c`` would). The new session is opened first, so a
failure leaves the current one as it was."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .widgets.side_panel import SidePanel
from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from .app import TuiAgentApp


async def new_session(app: TuiAgentApp) -> None:
    from ..config import ConfigError
    from ..session import SessionError
    from ..wiring.host import open_host
    from .approver import UIApprover
    from .event_router import EventRouter

    if app.host is None or app.busy:
        app.notify("busy or still starting: Esc stops the agent, then /new", severity="warning")
        return
    options = dataclasses.replace(
        app.options,
        resume=None,
        continue_last=False,
        profile=app.host.profile.name,
        model=app.host.profile.model,
    )
    try:
        host = await open_host(options, UIApprover(app))
    except (ConfigError, SessionError) as exc:
        app.notify(str(exc), severity="error", markup=False)
        return
    old, app.host, app.options = app.host, host, options
    await old.close()
    main = app.query_one("#main")
    old_panel = app.query_one(SidePanel)
    shown = old_panel.display
    await app.query_one(Transcript).remove()
    await old_panel.remove()
    transcript = Transcript(id="transcript")
    panel = SidePanel(id="calls")
    panel.display = shown
    await main.mount_all([transcript, panel])
    app.router = EventRouter(app)
    status = app.query_one(StatusBar)
    status.connection = "ready"
    status.tokens = 0
    status.mode = str(host.policy.mode)
    for notice in host.notices:
        transcript.add_notice(notice.text, notice.level)
    transcript.add_notice("a new session", "info")
    from .context_view import attach_context

    attach_context(app, host)
