"""Switch the running app to another saved session.

The new session is opened first (config, provider, the session's lock, its history), so a
failure (the session is open in another tui-agent process, unreadable, gone) leaves the current
session as it was. Only then is the current host closed, the transcript and calls panel replaced
by empty ones, and the resumed conversation shown, exactly as ``tui-agent -r ID`` would (the
app's ``show_session``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..session import SessionError

if TYPE_CHECKING:
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
    await app.show_session(host, options=options)  # the host's own notices say which session
