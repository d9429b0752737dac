"""The command-line arguments of `tui-agent sessions ...` and `tui-agent export` (argparse only:
building the parser must stay cheap, so nothing else is imported here)."""

from __future__ import annotations

import argparse
from typing import Any

SESSION_ARG = "an id, a unique prefix of one, or the path of a session file"


def add_session_commands(commands: Any) -> argparse.ArgumentParser:
    """Add ``sessions`` (with ``rename``, ``delete``, ``fork``) and ``export`` to ``commands``
    (the root parser's subparsers); returns the ``sessions`` parser."""
    sessions: argparse.ArgumentParser = commands.add_parser(
        "sessions",
        help="list saved sessions; rename, delete or fork one",
        description="List saved sessions, most recently updated first: id, last update, "
        "profile/model, number of messages (user and assistant), title. Sessions of every "
        "workspace are listed unless --workspace is given.",
    )
    sessions.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array of objects: id, title, created, updated (ISO 8601 UTC), "
        "profile, protocol, model, messages, workspace, path",
    )
    scope = sessions.add_mutually_exclusive_group()
    scope.add_argument(
        "--all",
        dest="only_workspace",
        action="store_const",
        const=None,
        help="sessions of every workspace (the default)",
    )
    scope.add_argument(
        "--workspace",
        dest="only_workspace",
        metavar="DIR",
        help="only the sessions started in DIR",
    )
    sessions.set_defaults(only_workspace=None)
    actions = sessions.add_subparsers(dest="sessions_action", metavar="ACTION")

    rename = actions.add_parser(
        "rename",
        help="give a session a title",
        description="Give a session a title; it replaces the title taken from the first "
        "message, and any earlier rename.",
    )
    rename.add_argument("session", metavar="ID", help=SESSION_ARG)
    rename.add_argument("title", metavar="TITLE")

    delete = actions.add_parser(
        "delete",
        help="delete a session",
        description="Delete a session file. Asks for confirmation on a terminal; without a "
        "terminal, --yes is required. Refused while the session is open in tui-agent.",
    )
    delete.add_argument(
        "session", metavar="ID", help="an id, a unique prefix of one, or a path in the folder"
    )
    delete.add_argument("-y", "--yes", action="store_true", help="do not ask")

    fork = actions.add_parser(
        "fork",
        help="copy a session up to a message into a new session",
        description="Make a new session with the same profile, model and workspace holding "
        "the conversation up to and including message N, and print its id. Messages are "
        "numbered from 1, user and assistant messages alike, as `tui-agent sessions` counts "
        "them and `tui-agent export` heads them. Calls left without a result are marked "
        "interrupted, so the fork can be continued at once.",
    )
    fork.add_argument("session", metavar="ID", help=SESSION_ARG)
    fork.add_argument(
        "--at", type=_positive, required=True, metavar="N", help="the last message to keep"
    )
    fork.add_argument("--title", metavar="T", help="the new session's title")

    export = commands.add_parser(
        "export",
        help="write a session as Markdown or JSON",
        description="Write a session for a person (markdown: messages, tool calls with their "
        "arguments, decisions and results) or in full (json: the header, every record as "
        "stored with the raw provider events, and the problems met reading the file).",
    )
    export.add_argument("session", metavar="ID", help=SESSION_ARG)
    export.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="default: markdown"
    )
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (mode 0600) instead of stdout"
    )
    export.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    return sessions


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a message number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"messages are numbered from 1, not {value}")
    return value
