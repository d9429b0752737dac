"""/new: close this session and start an empty one in the same workspace, with the same
profile and model (as ``tui-agent`` without ``-c`` would). The new session is opened first, so a
failure leaves the current one as it was."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell import Shell


async def new_session(app: Shell) -> None:
    from ..config import ConfigError
    from ..config.model import DEMO_PROFILE
    from ..config.resolve import AD_HOC_PROFILE
    from ..session import SessionError
    from ..wiring.host import open_host
    from .approver import UIApprover

    if app.host is None or app.busy:
        app.notify("busy or still starting: Esc stops the agent, then /new", severity="warning")
        return
    profile = app.host.profile
    # The profile in use now (the person may have switched it): by name, unless it was built
    # from the command line's --protocol and --base-url, which the options still hold.
    named = app.options.profile if profile.name == AD_HOC_PROFILE else profile.name
    # The demo profile has its one model and takes none from outside.
    model = None if profile.name == DEMO_PROFILE else profile.model
    options = dataclasses.replace(
        app.options, resume=None, continue_last=False, model=model, profile=named
    )
    try:
        host = await open_host(options, UIApprover(app))
    except (ConfigError, SessionError) as exc:
        app.notify(str(exc), severity="error", markup=False)
        return
    await app.show_session(host, "a new session", options=options)
