"""The command-line arguments of `tui-agent rewind` (argparse only: cheap to build)."""

from __future__ import annotations

import argparse
from typing import Any

from .session_args import SESSION_ARG, _positive


def add_rewind_command(commands: Any) -> argparse.ArgumentParser:
    rewind: argparse.ArgumentParser = commands.add_parser(
        "rewind",
        help="undo what the agent did to your files, from one of your messages on",
        description="Restore the state just before message N was sent: the files the agent "
        "changed after it (every checkpointed call), and the conversation (a new session that "
        "ends just before it, as `sessions fork` makes; the session itself is kept). Messages "
        "are numbered as `tui-agent sessions` counts them; N must be one of yours. A file "
        "changed since the agent's last write is a conflict: asked about on a terminal, else "
        "left as it is. Exit status: 0 done, 2 conflicts left, 1 usage error.",
    )
    rewind.add_argument("session", metavar="SESSION", help=SESSION_ARG)
    rewind.add_argument(
        "--to", type=_positive, metavar="N", help="the message to rewind to (one of yours)"
    )
    rewind.add_argument(
        "--undo", action="store_true", help="undo the session's last rewind (its files)"
    )
    what = rewind.add_mutually_exclusive_group()
    what.add_argument("--files-only", action="store_true", help="leave the conversation")
    what.add_argument("--conversation-only", action="store_true", help="leave the files")
    rewind.add_argument(
        "--dry-run", action="store_true", help="say what would change; change nothing"
    )
    rewind.add_argument(
        "--overwrite-conflicts",
        action="store_true",
        help="overwrite files changed since the agent's last write without asking",
    )
    rewind.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: files [{path, action restored/deleted/conflict/skipped, "
        "summary, why}], session (the new session's id, or null), notices, dry_run",
    )
    return rewind
