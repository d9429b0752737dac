"""`tui-agent serve` and `tui-agent replay ID --serve`: the app in a web browser.

A browser tab of this app can approve shell commands, so nobody but the person who started it
may get in: it listens on loopback unless --allow-remote is given (then with a warning), every
URL holds a fresh random token (refused without it: 403), the Host header and the websocket's
Origin are checked (``serve.guard``). The token is printed once, on stdout, for the person to
open; it is a log secret (redacted wherever it would appear) and it is never given to the app
child: not in its argv, not in its environment.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import sys
from pathlib import Path

from .exit_status import EXIT_OK
from .output import fail

INSTALL_HINT = (
    "serving needs the textual-serve package: install it into the same environment, "
    "e.g. .venv/bin/python -m pip install textual-serve (it is a dependency of tui-agent; "
    "an install that left it out was made with --no-deps)"
)
_APP_FLAGS = (
    ("--profile", "profile"),
    ("--protocol", "protocol"),
    ("--model", "model"),
    ("--base-url", "base_url"),
    ("--api-key-env", "api_key_env"),
    ("--sandbox", "sandbox"),
    ("--resume", "resume"),
    ("--theme", "theme"),
)


def main(args: argparse.Namespace) -> int:
    """``tui-agent serve``: the app, one child per browser connection."""
    return serve(args, [*_self_command(), *app_arguments(args)], "tui-agent")


def serve_replay(args: argparse.Namespace, session_path: Path, session_id: str) -> int:
    """``tui-agent replay ID --serve``: the replay of one saved session, per connection."""
    argv = [*_self_command(), "replay", str(session_path.resolve()), "--speed", str(args.speed)]
    if getattr(args, "theme", None):
        argv += ["--theme", args.theme]
    return serve(args, argv, f"tui-agent replay {session_id}", command="replay")


def app_arguments(args: argparse.Namespace) -> list[str]:
    """The app's own options, given again to each child (the workspace made absolute)."""
    argv: list[str] = []
    for flag, name in _APP_FLAGS:
        value = getattr(args, name, None)
        if value is not None:
            argv += [flag, str(value)]
    workspace = getattr(args, "workspace", None)
    if workspace is not None:
        argv += ["--workspace", str(Path(workspace).expanduser().resolve())]
    if getattr(args, "continue_last", False):
        argv.append("--continue")
    if getattr(args, "debug", False):
        argv.append("--debug")
    return argv


def _self_command() -> list[str]:
    return [sys.executable, "-m", "tui_agent"]


def serve(args: argparse.Namespace, argv: list[str], title: str, command: str = "serve") -> int:
    """Serve ``argv`` (run once per browser connection) until Ctrl+C."""
    from ..serve.guard import WILDCARD_HOSTS, Guard, is_loopback, new_token

    host: str = args.host
    if not is_loopback(host) and not args.allow_remote:
        return fail(
            command,
            f"--host {host} can be reached from other machines; serving beyond this one needs "
            "--allow-remote (read docs/headless-and-serve.md first)",
        )
    try:
        from ..serve.server import ServeConfig, run_server
    except ImportError:
        return fail(command, INSTALL_HINT)
    token = new_token()
    _log_with_token_hidden(token, getattr(args, "debug", False))
    names = [socket.gethostname(), socket.getfqdn()] if host.strip("[]") in WILDCARD_HOSTS else []
    guard = Guard.for_host(host, token, *names)
    if not is_loopback(host):
        _warn_remote(host)
    config = ServeConfig(
        argv=argv,
        host=host,
        port=args.port,
        guard=guard,
        title=title,
        max_tabs=args.max_tabs,
    )

    def ready(bound_host: str, port: int) -> None:
        shown = names[0] if names else bound_host.strip("[]")
        if ":" in shown:
            shown = f"[{shown}]"
        print(
            f"tui-agent {command}: open this URL in a web browser (its token is new with every "
            f"start; anyone who has the URL can use the app):\n\n"
            f"    http://{shown}:{port}/{token}/\n\n"
            "Each tab runs its own app. Ctrl+C stops the server and every app it started.",
            flush=True,
        )

    try:
        asyncio.run(run_server(config, ready))
    except OSError as exc:
        return fail(command, f"cannot listen on {host} port {args.port}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _log_with_token_hidden(token: str, debug: bool) -> None:
    """Our log file for the server's own lines (and aiohttp's), the token a redacted secret."""
    from ..logs import add_log_secret, setup_logging

    setup_logging(debug)
    add_log_secret(token)
    ours = logging.getLogger("tui_agent")
    for name in ("aiohttp", "textual-serve"):
        other = logging.getLogger(name)
        other.propagate = False
        other.setLevel(logging.DEBUG if debug else logging.WARNING)
        other.handlers = list(ours.handlers)


def _warn_remote(host: str) -> None:
    print(
        f"warning: serving on {host}, reachable from other machines. Anyone who has the URL can "
        "approve commands that run here as you, and the connection is plain http: anyone on "
        "the network path can read the token. Prefer keeping the default 127.0.0.1 and an ssh "
        "tunnel (ssh -L 8000:127.0.0.1:8000 THIS-MACHINE).",
        file=sys.stderr,
        flush=True,
    )
