"""The command-line arguments of `tui-agent serve` and of `replay --serve` (argparse only:
building the parser must stay cheap, so nothing else is imported here)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_TABS = 8


def add_serve_command(
    commands: Any, add_profile_flags: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Add ``serve`` to ``commands`` (the root parser's subparsers), with the app's options."""
    serve = commands.add_parser(
        "serve",
        help="serve the app to a web browser (loopback only, behind a fresh token)",
        description="Serve the whole app (chat, approvals, sessions) to a web browser and print "
        "the URL to open. The URL holds a fresh random token; without it every request is "
        "refused. Each browser tab runs an app of its own (closing the tab ends it, its session "
        "is kept). Only this machine can connect unless --allow-remote is given. Ctrl+C stops "
        "the server and every app it started.",
    )
    add_profile_flags(serve)
    app = serve.add_argument_group("the app")
    app.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        default=argparse.SUPPRESS,
        help="resume the most recent session for this workspace",
    )
    app.add_argument(
        "-r", "--resume", metavar="ID", default=argparse.SUPPRESS, help="resume a session"
    )
    app.add_argument(
        "--theme",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help="dark, light, high-contrast or a theme file's name",
    )
    add_serve_options(serve)


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """--host, --port and --allow-remote (for ``serve`` and ``replay --serve``)."""
    group = parser.add_argument_group("serving to a browser")
    group.add_argument(
        "--host",
        default=DEFAULT_HOST,
        metavar="HOST",
        help=f"the address to listen on (default {DEFAULT_HOST}; any address that is not "
        "loopback needs --allow-remote)",
    )
    group.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        metavar="PORT",
        help=f"the port (default {DEFAULT_PORT}; 0: any free port)",
    )
    group.add_argument(
        "--max-tabs",
        type=_tabs,
        default=DEFAULT_MAX_TABS,
        metavar="N",
        help=f"at most N browser tabs at once, each an app of its own (default "
        f"{DEFAULT_MAX_TABS}); one more is told to close another",
    )
    group.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines can reach "
        "(plain http: read docs/headless-and-serve.md first)",
    )


def _bounded(what: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high`` (``what`` names it in errors)."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be {low} to {high}, not {value}")
        return value

    return read


_tabs = _bounded("a number of tabs", 1, 1000)
_port = _bounded("a port", 0, 65535)
