"""Switch the running app to another saved session.

The new session is opened first (config, provider, the session's lock, its history), so a
failure (the session is open in another tui-agent process, unreadable, gone) leaves the current
session as it was. Only then is the current host closed, the transcript and calls panel replaced
by empty ones, and the resumed conversation shown, exactly as ``tui-agent -r ID`` would.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..session import SessionError
from .widgets.side_panel import SidePanel
from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from ..wiring.host import SessionHost
    from ..wiring.host_options import HostOptions
    from .shell import Shell


def current_session_id(app: Shell) -> str | None:
    """The id of the session the app has open, if any."""
    if app.host is None:
        return None
    session_id = getattr(app.host.writer, "session_id", None)
    return session_id if isinstance(session_id, str) else None


def refusal(app: Shell, session_id: str) -> str | None:
    """Why the app cannot switch to ``session_id`` now, or None when it can."""
    if app.busy:
        return "the agent is busy: Esc stops it, then switch sessions"
    if app.host is None:
        return "still starting, or not configured: cannot switch sessions yet"
    if current_session_id(app) == session_id:
        return f"session {session_id} is already open"
    return None


async def switch_session(app: Shell, session_id: str) -> None:
    """Resume ``session_id`` in place of the current session.

    Raises SessionError or ConfigError with a message for the user; the current session is kept
    open then.
    """
    from ..wiring.host import open_host
    from .approver import UIApprover

    reason = refusal(app, session_id)
    if reason is not None:
        raise SessionError(reason)
    options = dataclasses.replace(app.options, resume=session_id, continue_last=False)
    host = await open_host(options, UIApprover(app))
    await install_host(app, host, options, "")  # the host's own notices say which session


async def install_host(app: Shell, host: SessionHost, options: HostOptions, notice: str) -> None:
    """Close the current host and show ``host`` (opened already) in fresh panes: its status,
    its notices and ``notice`` (when not empty), its MCP servers, context, sandbox and
    conversation (none for a new session), as the app shows a session it starts with."""
    from .event_router import EventRouter

    old, app.host, app.options = app.host, host, options
    if old is not None:
        await old.close()
    main = app.query_one("#main")
    old_panel = app.query_one(SidePanel)
    # Only what F2 chose is carried over: a panel hidden by the layout (empty, narrow) is not.
    chosen = old_panel.styles.inline.has_rule("display")
    shown = old_panel.display
    await app.query_one(Transcript).remove()
    await old_panel.remove()
    transcript = Transcript(id="transcript")
    panel = SidePanel(id="calls")
    if chosen:
        panel.display = shown
    await main.mount_all([transcript, panel])
    app.router = EventRouter(app)
    status = app.query_one(StatusBar)
    status.profile = host.profile.name
    status.model = host.profile.model
    status.mode = str(host.policy.mode)
    status.connection = "ready"
    status.tokens = host.tokens  # the resumed session's, not the last one's (0 when new)
    status.hint = "offline demo model" if host.profile.is_demo else ""
    for item in host.notices:
        transcript.add_notice(item.text, item.level)
    if notice:
        transcript.add_notice(notice, "info")
    from .mcp_view import attach_mcp

    attach_mcp(app, host)  # the new session's servers: notices, "MCP n/m"
    from .context_view import attach_context

    attach_context(app, host)
    app.router.show_conversation(host)
    from .sandbox_view import show_sandbox

    show_sandbox(app)  # the new session's, from config
