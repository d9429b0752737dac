"""`tui-agent checkpoints`: the checkpoint folder of every workspace; `prune` removes what no kept
session refers to (see checkpoints/prune.py).

The list is for people (a table; every path made safe for the terminal) or, with ``--json``, one
object for programs. Exit status: 0, or 1 for a usage error (config.toml cannot be read: its
``checkpoint_keep_days`` decides what a prune keeps; the list falls back to the default).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ..checkpoints.folder import checkpoints_root
from ..checkpoints.inventory import StoreInfo, inventory
from ..checkpoints.prune import DEFAULT_KEEP_DAYS, PruneReport, StoreResult, prune
from ..config import ConfigError, load_config
from ..session.paths import sessions_dir
from ..text.sanitize import visible_line
from ..text.sizes import human_bytes
from .exit_status import EXIT_OK, EXIT_USAGE
from .output import fail, write_stdout


def main(args: argparse.Namespace) -> int:
    if getattr(args, "checkpoints_action", None) == "prune":
        return prune_command(args)
    return list_command(args)


def _keep_days() -> int:
    return load_config().settings.checkpoint_keep_days


# -- list -----------------------------------------------------------------------------------


def list_command(args: argparse.Namespace) -> int:
    try:
        keep_days = _keep_days()
    except ConfigError as exc:
        keep_days = DEFAULT_KEEP_DAYS
        first = visible_line(str(exc).splitlines()[0])
        print(f"note: {first}; kept sessions: the default {keep_days} days", file=sys.stderr)
    root = checkpoints_root()
    stores = inventory(root, sessions_dir(), keep_days, time.time())
    if args.json:
        body = {"keep_days": keep_days, "stores": [store_json(s) for s in stores]}
        text = json.dumps(body, ensure_ascii=True, indent=2) + "\n"
        return EXIT_OK if write_stdout(text) else EXIT_USAGE
    if not stores:
        print("no checkpoints are kept", file=sys.stderr)
        return EXIT_OK
    for store in stores:
        for why in store.blocked:
            print(f"note: {_where(store.workspace, store.name)}: not pruned: {visible_line(why)}",
                  file=sys.stderr)  # fmt: skip
    return EXIT_OK if write_stdout(store_table(stores, keep_days)) else EXIT_USAGE


def store_json(store: StoreInfo) -> dict[str, Any]:
    """One element of ``checkpoints --json``'s stores."""
    return {
        "store": store.name,
        "workspace": store.workspace or None,
        "path": str(store.path),
        "bytes": store.size,
        "blobs": store.blobs,
        "snapshots": store.snapshots,
        "sessions": store.sessions,
        "sessions_kept": store.kept,
        "blocked": store.blocked,
    }


def _where(workspace: str, name: str) -> str:
    return visible_line(workspace) if workspace else f"(unknown workspace, {name})"


def store_table(stores: list[StoreInfo], keep_days: int) -> str:
    """SIZE, BLOBS, SNAPSHOTS, SESSIONS (kept), WORKSPACE; then the total."""
    rows = [("SIZE", "BLOBS", "SNAPSHOTS", "SESSIONS", "WORKSPACE")]
    for s in stores:
        sessions = f"{s.sessions} ({s.kept} kept)" if s.sessions else "0"
        rows.append(
            (human_bytes(s.size), str(s.blobs), str(s.snapshots), sessions,
             _where(s.workspace, s.name))
        )  # fmt: skip
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = []
    for row in rows:
        cells = [cell.rjust(widths[n]) if n < 3 else cell.ljust(widths[n]) for n, cell in
                 enumerate(row[:4])]  # fmt: skip
        lines.append("  ".join([*cells, row[4]]).rstrip())
    total = human_bytes(sum(s.size for s in stores))
    kept = f"changed in the last {keep_days} days, or open" if keep_days else "every saved one"
    lines.append(f"total {total} in {len(stores)} workspace(s); sessions kept: {kept}")
    return "\n".join(lines) + "\n"


# -- prune ----------------------------------------------------------------------------------


def prune_command(args: argparse.Namespace) -> int:
    command = "checkpoints prune"
    try:
        keep_days = _keep_days()
    except ConfigError as exc:
        return fail(command, f"{exc} (checkpoint_keep_days decides what is kept)")
    report = prune(keep_days, dry_run=args.dry_run)
    if getattr(args, "json", False):
        text = json.dumps(report_json(report), ensure_ascii=True, indent=2) + "\n"
        return EXIT_OK if write_stdout(text) else EXIT_USAGE
    for notice in report.notices:
        print(f"note: {visible_line(notice)}", file=sys.stderr)
    return EXIT_OK if write_stdout(report_text(report)) else EXIT_USAGE


def report_json(report: PruneReport) -> dict[str, Any]:
    return {
        "dry_run": report.dry_run,
        "keep_days": report.keep_days,
        "bytes_freed": report.bytes_freed,
        "stores": [
            {
                "store": s.name,
                "workspace": s.workspace or None,
                "action": s.action,
                "why": s.why,
                "blobs": s.blobs,
                "objects": s.objects,
                "bytes_freed": s.bytes_freed,
            }
            for s in report.stores
        ],
        "notices": report.notices,
    }


def report_text(report: PruneReport) -> str:
    """One line a workspace, then what was freed in all."""
    lines = [f"{_where(s.workspace, s.name)}: {_done(s, report.dry_run)}" for s in report.stores]
    if not report.stores:
        lines.append("no checkpoints are kept")
    verb = "would free about" if report.dry_run else "freed"
    lines.append(f"{verb} {human_bytes(report.bytes_freed)} in all")
    return "".join(visible_line(line) + "\n" for line in lines)


def _done(store: StoreResult, dry_run: bool) -> str:
    size = human_bytes(store.bytes_freed)
    freed = f"about {size}" if dry_run else f"{size} freed"
    if store.action == "removed":
        verb = "would be removed" if dry_run else "removed"
        return f"{verb} entirely ({store.why}), {freed}"
    if store.action == "skipped":
        return f"skipped: {store.why}"
    if store.action == "blocked":
        return f"nothing pruned: {store.why}"
    if store.action == "unchanged":
        return "nothing to remove" + (f" ({store.why})" if store.why else "")
    parts = []
    if store.blobs:
        parts.append(f"{store.blobs} file content(s)")
    if store.objects:
        parts.append(f"{store.objects} snapshot object(s)")
    what = " and ".join(parts) or "files a crash left"
    note = f"; {store.why}" if store.why else ""
    return f"{'would remove' if dry_run else 'removed'} {what}, {freed}{note}"
