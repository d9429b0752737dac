"""The command-line arguments of `tui-agent checkpoints` (argparse only: cheap to build)."""

from __future__ import annotations

import argparse
from typing import Any


def add_checkpoints_command(commands: Any) -> argparse.ArgumentParser:
    """Add ``checkpoints`` (with ``prune``); returns its parser."""
    checkpoints: argparse.ArgumentParser = commands.add_parser(
        "checkpoints",
        help="list the checkpoints kept for rewinds; prune them",
        description="List the checkpoint folder of every workspace: the workspace, its size "
        "on disk, the file contents (blobs) and command snapshots it holds, and the saved "
        "sessions that refer to it (kept: changed within checkpoint_keep_days of config.toml, "
        "or open).",
    )
    checkpoints.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: keep_days, stores [{store, workspace, path, bytes, blobs, "
        "snapshots, sessions, sessions_kept, blocked}]",
    )
    actions = checkpoints.add_subparsers(dest="checkpoints_action", metavar="ACTION")
    prune = actions.add_parser(
        "prune",
        help="remove what no kept session refers to",
        description="Remove the checkpoint data no kept session refers to: a session is kept "
        "while it was changed within checkpoint_keep_days (config.toml, default 30; 0: always) "
        "or is open; a deleted session keeps nothing. A workspace whose folder is in use or "
        "has a rewind under way is skipped; one with a session that cannot be read whole is "
        "left alone (and said). What was written in the last hour always stays. The app and "
        "`run` do this by themselves at most once a day. Exit status: 0 done, 1 usage error.",
    )
    prune.add_argument(
        "--dry-run", action="store_true", help="say what would be removed; remove nothing"
    )
    prune.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print one JSON object: dry_run, keep_days, bytes_freed, stores [{store, "
        "workspace, action pruned/removed/unchanged/skipped/blocked, why, blobs, objects, "
        "bytes_freed}], notices",
    )
    return checkpoints
