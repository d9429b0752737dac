"""`tui-agent rewind SESSION --to N`: undo what the agent did to the files after message N, and
fork the conversation to just before it (see agent/rewind.py). ``--undo`` undoes the last rewind.

Exit status: 0 done, 2 conflicts left (a file changed since the agent's last write was kept), 1
a usage error (no such session or message, the session open in the app, ...).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..checkpoints import Limits, Plan
from ..session import SessionError, SessionStore, SessionWriter
from .exit_status import EXIT_CONFLICTS, EXIT_OK, EXIT_USAGE
from .output import fail, started_as, write_stdout

COMMAND = "rewind"


def main(args: argparse.Namespace) -> int:
    if args.undo == (args.to is not None):
        return fail(COMMAND, "give --to N (one of your messages) or --undo")
    if args.undo and args.conversation_only:
        return fail(COMMAND, "--undo undoes the files of the last rewind; --conversation-only "
                    "has nothing to undo")  # fmt: skip
    try:
        return _rewind(args)
    except SessionError as exc:
        return fail(COMMAND, str(exc))
    except OSError as exc:  # the checkpoints folder or the session file, not one file
        return fail(COMMAND, f"the rewind failed: {exc}")


def _rewind(args: argparse.Namespace) -> int:
    from ..agent import rewind as rw

    store = SessionStore()
    loaded = store.load(args.session)
    files = not args.conversation_only
    conversation = not args.files_only and not args.undo
    plan: Plan | None = None
    limits = _limits()
    if args.undo:
        plan, last = rw.undo_plan(loaded, limits=limits)
    else:
        plan = rw.plan_to(loaded, args.to, limits=limits) if files else None
        if not files:
            rw.message_index(loaded.records, args.to)
    if args.dry_run:
        rows = rw.planned_rows(plan) if plan is not None else []
        result = rw.RewindResult(rows, None, list(plan.notices) if plan else [])
        if conversation:
            result.notices.append(f"the conversation would be forked before message {args.to}")
        return _report(args, result, dry_run=True)
    writer = None
    if plan is not None and plan.files:
        writer = store.open_for_append(loaded.id)  # SessionLockedError when open in the app
    try:
        fork = rw.fork_before(store, loaded.id, args.to) if conversation else None
        if plan is None:
            return _report(args, rw.RewindResult(session=fork), dry_run=False)
        writers: list[SessionWriter | None] = [writer]
        if fork:
            writers.append(store.open_for_append(fork))

        def record(rewind: Any) -> None:
            for each in writers:
                if each is not None:
                    each.append(rewind, sync=True)

        try:
            result = rw.apply_plan(
                rw.folder_of(loaded),
                plan,
                _overwrite(args),
                record,
                to=args.to,
                undoes=last.id if args.undo else None,
                fork=fork,
                limits=limits,
            )
        finally:
            for each in writers[1:]:
                if each is not None:
                    each.close()
    finally:
        if writer is not None:
            writer.close()
    return _report(args, result, dry_run=False)


def _limits() -> Limits | None:
    """config.toml's checkpoint limits (the defaults when it cannot be read: a rewind is not
    refused for a broken config)."""
    from ..config import ConfigError, load_config

    try:
        return load_config().settings.checkpoint_limits()
    except ConfigError:
        return None


def _overwrite(args: argparse.Namespace) -> Any:
    """How conflicts are decided: all overwritten (the flag), asked (a terminal), else kept."""
    if args.overwrite_conflicts:
        return lambda _item: True
    if args.json or not sys.stdin.isatty():
        return lambda _item: False
    answers: dict[str, bool] = {}

    def ask(item: Any) -> bool:
        from ..text.sanitize import visible_line

        if "all" in answers:
            return answers["all"]
        sys.stderr.write(
            f"{visible_line(item.path)}: {item.why}. Overwrite it ({item.summary})? "
            "[y]es, [n]o, [a]ll, non[e] of the rest: "
        )
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer in ("a", "all"):
            answers["all"] = True
        elif answer in ("e", "none"):
            answers["all"] = False
        return answers.get("all", answer in ("y", "yes"))

    return ask


def _report(args: argparse.Namespace, result: Any, *, dry_run: bool) -> int:
    from ..text.sanitize import visible_line

    code = EXIT_CONFLICTS if result.conflicts_left else EXIT_OK
    if args.json:
        body = {
            "files": result.files,
            "session": result.session,
            "notices": result.notices,
            "dry_run": dry_run,
        }
        return code if write_stdout(json.dumps(body, ensure_ascii=True) + "\n") else EXIT_USAGE
    lines = []
    verb = "would be " if dry_run else ""
    for row in result.files:
        why = f": {row['why']}" if row["why"] else ""
        kept = " (kept as it is)" if row["action"] == "conflict" and not dry_run else ""
        detail = f" ({row['summary']})" if row["summary"] else ""
        lines.append(f"{verb}{row['action']} {row['path']}{detail}{why}{kept}")
    if not result.files and not args.conversation_only:
        lines.append("no file to change")
    for notice in result.notices:
        print(f"note: {visible_line(notice)}", file=sys.stderr)
    if result.session:
        lines.append(
            f"conversation rewound into {result.session}: {started_as()} -r {result.session}"
        )
    text = "".join(visible_line(line) + "\n" for line in lines)
    return code if write_stdout(text) else EXIT_USAGE
