"""`tui-agent sessions`: list saved sessions; `rename`, `delete` and `fork` one.

- The list is every session of every workspace, most recently updated first (``--workspace
  DIR``: only the sessions started there). The table is for people: every field is made safe
  for the terminal. ``--json`` is for programs: an array of objects whose keys are
  ``SESSION_FIELDS``, times as ISO 8601 UTC strings (``2026-11-29T15:11:05.123Z``).
- ``delete`` asks on a terminal; without one it needs ``--yes``.
- ``fork`` prints only the new id on stdout (for scripts); what happened goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..session import SessionError, SessionStore, SessionSummary, is_session_path
from ..text.times import human_local, iso_utc
from .exit_status import EXIT_OK, EXIT_USAGE
from .output import fail, started_as, write_stdout

if TYPE_CHECKING:
    from ..providers.cost import Price

SESSION_FIELDS = (
    "id",
    "title",
    "created",
    "updated",
    "profile",
    "protocol",
    "model",
    "messages",
    "workspace",
    "path",
    "cost",  # US dollars of the turns whose cost is known; null when none is (not zero)
    "cost_unknown_turns",
)


def main(args: argparse.Namespace) -> int:
    action = getattr(args, "sessions_action", None)
    if action == "rename":
        return rename(args)
    if action == "delete":
        return delete(args)
    if action == "fork":
        return fork(args)
    return list_sessions(args)


# -- list -----------------------------------------------------------------------------------


def list_sessions(args: argparse.Namespace) -> int:
    summaries = SessionStore().list()
    if args.only_workspace is not None:
        from ..session.summary import same_workspace

        wanted = os.path.abspath(os.path.expanduser(args.only_workspace))
        summaries = [s for s in summaries if same_workspace(s.workspace, wanted)]
    if args.json:
        prices = _prices()
        rows = [session_json(summary) | session_cost(summary.path, prices) for summary in summaries]
        text = json.dumps(rows, ensure_ascii=True, indent=2) + "\n"
    elif summaries:
        text = session_table(summaries)
    else:
        where = " for that workspace" if args.only_workspace is not None else ""
        print(f"no saved sessions{where}", file=sys.stderr)
        return EXIT_OK
    return EXIT_OK if write_stdout(text) else EXIT_USAGE


def _prices() -> dict[str, Price]:
    from ..config import ConfigError, default_config_path
    from ..config.prices import load_prices, prices_path
    from ..providers.cost import BUILTIN

    try:
        return load_prices(prices_path(default_config_path()))
    except ConfigError as exc:
        print(f"tui-agent sessions: {exc}; using the built-in prices", file=sys.stderr)
        return dict(BUILTIN)


def session_cost(path: Path, prices: Mapping[str, Price]) -> dict[str, Any]:
    """``cost``: US dollars of the session's complete turns and compactions (applied or not)
    whose cost is known (None when none's is), and ``cost_unknown_turns``: those without a
    price or a usage."""
    from ..providers.cost import turn_cost
    from ..session.codec import clean_line, sniff_type

    spent: float | None = None
    unknown = 0
    try:
        with path.open("rb") as file:
            for raw in file:
                line = clean_line(raw.rstrip(b"\n"))
                if not line or sniff_type(line) not in ("assistant", "compaction", "note"):
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                if record.get("type") == "note" and record.get("kind") != "compaction_failed":
                    continue  # a note costs nothing; a compaction answered but not applied does
                usage = record.get("usage")
                cost = turn_cost(
                    str(record.get("protocol", "")),
                    str(record.get("model", "")),
                    usage if isinstance(usage, dict) else None,
                    prices,
                )
                if cost is None:
                    unknown += 1
                else:
                    spent = (spent or 0.0) + cost
    except OSError:
        pass
    return {"cost": None if spent is None else round(spent, 6), "cost_unknown_turns": unknown}


def session_json(summary: SessionSummary) -> dict[str, Any]:
    """One element of ``sessions --json``."""
    return {
        "id": summary.id,
        "title": summary.title,
        "created": iso_utc(summary.created),
        "updated": iso_utc(summary.updated),
        "profile": summary.profile,
        "protocol": summary.protocol,
        "model": summary.model,
        "messages": summary.messages,
        "workspace": summary.workspace,
        "path": str(summary.path),
    }


def session_table(summaries: list[SessionSummary]) -> str:
    """The table people read: ID, UPDATED, PROFILE/MODEL, MESSAGES, TITLE."""
    from rich.cells import cell_len

    from ..text.sanitize import visible_line

    rows = [("ID", "UPDATED", "PROFILE/MODEL", "MESSAGES", "TITLE")]
    for s in summaries:
        model = "/".join(part for part in (s.profile, s.model) if part) or "-"
        rows.append(
            (
                visible_line(s.id),
                human_local(s.updated),
                visible_line(model),
                str(s.messages),
                visible_line(s.title),
            )
        )
    widths = [max(cell_len(row[column]) for row in rows) for column in range(4)]
    lines = []
    for row in rows:
        cells = [
            cell + " " * (widths[column] - cell_len(cell)) if column != 3 else cell.rjust(widths[3])
            for column, cell in enumerate(row[:4])
        ]
        lines.append("  ".join([*cells, row[4]]).rstrip())
    return "\n".join(lines) + "\n"


# -- rename, delete -----------------------------------------------------------------------


def rename(args: argparse.Namespace) -> int:
    from ..session.titles import one_line

    command = "sessions rename"
    if not one_line(args.title):
        return fail(command, "the title is empty")
    store = SessionStore()
    try:
        session_id = store.load(args.session).id
        store.rename(args.session, args.title)
    except SessionError as exc:
        return fail(command, str(exc))
    return _say(f"renamed {session_id}: {one_line(args.title)}")


def delete(args: argparse.Namespace) -> int:
    command = "sessions delete"
    store = SessionStore()
    try:
        session_id = _stored_id(store, args.session)
        loaded = store.load(session_id)
    except SessionError as exc:
        return fail(command, str(exc))
    if not args.yes:
        if not sys.stdin.isatty():
            return fail(
                command,
                f"not deleting {session_id} without confirmation: pass --yes "
                "(standard input is not a terminal to ask on)",
            )
        from ..agent.fork import message_count
        from ..text.sanitize import visible_line

        count = message_count(loaded.records)
        question = (
            f"Delete session {session_id} ({visible_line(loaded.title)}, "
            f"{count} message{'s' if count != 1 else ''})? This cannot be undone. [y/N] "
        )
        if not _confirm(question):
            return fail(command, f"{session_id} was not deleted")
    from ..images.cleanup import delete_session

    try:
        removed = delete_session(store, session_id)  # with the images only it named
    except SessionError as exc:
        return fail(command, str(exc))
    images = f" and {removed} image{'s' if removed != 1 else ''} only it named" if removed else ""
    return _say(f"deleted {session_id}{images}")


def _stored_id(store: SessionStore, arg: str) -> str:
    """The id of a session in the store, given by id, prefix, or a path into the store."""
    if not is_session_path(arg):
        return store.resolve(arg).stem
    path = Path(arg).expanduser()
    inside = os.path.realpath(path.parent) == os.path.realpath(store.directory)
    if inside and path.suffix == ".jsonl" and path.is_file():
        return path.stem
    raise SessionError(
        f"{arg} is not in the session folder; only sessions there are deleted "
        "(remove other files yourself)"
    )


def _confirm(question: str) -> bool:
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except (KeyboardInterrupt, EOFError):
        answer = ""
    if not answer.endswith("\n"):
        sys.stderr.write("\n")
    return answer.strip().lower() in ("y", "yes")


# -- fork -----------------------------------------------------------------------------------


def fork(args: argparse.Namespace) -> int:
    from ..agent.fork import fork_session
    from ..session.titles import one_line
    from ..text.sanitize import visible_line

    command = "sessions fork"
    if args.title is not None and not one_line(args.title):
        return fail(command, "the title is empty")
    try:
        made, source = fork_session(SessionStore(), args.session, args.at, args.title)
    except SessionError as exc:
        return fail(command, str(exc))
    repaired = (
        f"; {made.repaired} call{'s' if made.repaired != 1 else ''} without a result marked "
        "interrupted"
        if made.repaired
        else ""
    )
    print(
        f"forked {visible_line(source.id)} at message {made.at} into {made.session_id}{repaired}; "
        f"continue it with: {started_as()} -r {made.session_id}",
        file=sys.stderr,
    )
    return EXIT_OK if write_stdout(made.session_id + "\n") else EXIT_USAGE


def _say(line: str) -> int:
    from ..text.sanitize import visible_line

    return EXIT_OK if write_stdout(visible_line(line) + "\n") else EXIT_USAGE
