"""The command-line arguments of `tui-agent replay` (argparse only: building the parser must stay
cheap, so nothing else is imported here)."""

from __future__ import annotations

import argparse
from typing import Any

from .serve_args import add_serve_options


def add_replay_command(commands: Any) -> None:
    """Add ``replay`` to ``commands`` (the root parser's subparsers)."""
    replay = commands.add_parser(
        "replay",
        help="play a saved session back as it streamed (nothing runs, nothing is sent)",
        description="Play a saved session back in the app as it streamed: the recorded "
        "provider events are decoded again at the recorded pace, then each call's recorded "
        "decision and result are shown. No tool runs and no request is sent. Keys: space "
        "pause/resume, . step one event, + / - speed, q leave. With --headless the transcript "
        "is printed as text instead. With --serve it plays in a web browser instead (the URL "
        "to open is printed; see tui-agent serve --help).",
    )
    replay.add_argument(
        "session", metavar="ID", help="an id, a unique prefix of one, or the path of a session file"
    )
    replay.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        metavar="N",
        help="N times the recorded pace (2: twice as fast; 0: instant; default 1)",
    )
    replay.add_argument(
        "--theme", metavar="NAME", help="dark, light, high-contrast or a theme file's name"
    )
    replay.add_argument(
        "--headless",
        action="store_true",
        help="print the transcript as text instead (role labels, tool calls with their "
        "arguments, decisions and results), at once, without the app",
    )
    replay.add_argument(
        "--serve",
        action="store_true",
        help="play it in a web browser: prints the URL to open (with a fresh token)",
    )
    add_serve_options(replay)


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a speed: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"the speed must be 0 or more, not {text}")
    return value
