"""`tui-agent replay ID|FILE [--speed N] [--headless | --serve]`: play a saved session back in the
app, or print it as text (``--headless``: the way a reviewer reads a session in CI), or serve the
replay to a web browser (``--serve``).

The session file is only read (no lock is taken, nothing is written); no Agent, HTTP client or
session writer is made. An unknown id or an unreadable file is one line on stderr, exit 1.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..text.times import iso_utc
from .exit_status import EXIT_OK
from .output import fail, write_stdout

if TYPE_CHECKING:
    from ..session import LoadedSession

PlayInApp = Callable[["LoadedSession", argparse.Namespace], None]


def main(args: argparse.Namespace, play_in_app: PlayInApp) -> int:
    """Print, serve or play the session; ``play_in_app`` opens the replay app (the entry point
    passes it in: commands sit below the UI and never import it)."""
    from ..session import SessionError, SessionStore

    try:
        loaded = SessionStore().load(args.session)
    except SessionError as exc:
        return fail("replay", str(exc))
    if getattr(args, "headless", False):
        from ..replay.script import ReplayScript
        from ..replay.text_transcript import transcript_text

        header = loaded.header
        script = ReplayScript.from_records(loaded.records, loaded.problems)
        lines = [
            f"session {loaded.id}: {loaded.title}",
            f"{header.profile} · {header.protocol} · {header.model} · {iso_utc(header.created)}",
            "",
        ]
        write_stdout(transcript_text(script, lines))
        return EXIT_OK
    if getattr(args, "serve", False):
        from .serve import serve_replay

        return serve_replay(args, loaded.path, loaded.id)
    play_in_app(loaded, args)
    return EXIT_OK
