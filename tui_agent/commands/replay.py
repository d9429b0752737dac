"""`tui-agent replay ID|FILE [--speed N]`: play a saved session back in the app.

The session file is only read (no lock is taken, nothing is written); no Agent, HTTP client or
session writer is made. An unknown id or an unreadable file is one line on stderr, exit 1.
"""

from __future__ import annotations

import argparse

from .output import EXIT_OK, fail


def main(args: argparse.Namespace) -> int:
    from ..session import SessionError, SessionStore

    try:
        loaded = SessionStore().load(args.session)
    except SessionError as exc:
        return fail("replay", str(exc))
    from ..ui.replay_app import ReplayApp

    ReplayApp(loaded, speed=args.speed, theme_name=args.theme).run()
    return EXIT_OK
