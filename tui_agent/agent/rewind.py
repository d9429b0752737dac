"""Rewind a session to just before one of the person's messages: its files, its conversation, or
both. Shared by ``tui-agent rewind`` and the app.

- Messages are numbered as ``sessions fork --at`` counts them; the one rewound to must be a user
  message. The files go back to their state just before it was sent: every checkpoint and rewind
  recorded after it is undone (``checkpoints.plan_rewind``).
- The conversation goes back by a fork that ends just before it (the session itself is kept).
- A rewind is recorded (a ``rewind`` record with every file's state before and after, in the
  session and in the fork), so it can be undone: ``undo_plan`` plans the reverse of the last one.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..checkpoints import (
    Checkpointer,
    CheckpointFolder,
    Limits,
    Plan,
    PlannedFile,
    apply,
    plan_rewind,
)
from ..session import LoadedSession, SessionError, SessionStore
from ..session.records import NoteRecord, RewindRecord, RewoundFile, UserRecord
from .fork import fork_session, is_message, message_count

DONE = {"restore": "restored", "delete": "deleted"}


class RewindError(SessionError):
    """A rewind that cannot be made (no such message, not the person's, no rewind to undo)."""


@dataclass
class RewindResult:
    files: list[dict[str, str]] = field(default_factory=list)  # path, action, summary, why
    session: str | None = None  # the fork holding the rewound conversation
    notices: list[str] = field(default_factory=list)

    @property
    def conflicts_left(self) -> int:
        return sum(1 for f in self.files if f["action"] == "conflict")


def message_index(records: Sequence[Any], number: int) -> int:
    """Where message ``number`` is in ``records``; RewindError unless it is the person's."""
    total = message_count(records)
    if not 1 <= number <= total:
        if total == 0:
            raise RewindError("the session has no messages to rewind to")
        raise RewindError(f"there is no message {number}: the session has messages 1 to {total}")
    seen = 0
    for index, record in enumerate(records):
        if is_message(record):
            seen += 1
            if seen == number:
                if not isinstance(record, UserRecord):
                    raise RewindError(
                        f"message {number} is the assistant's; rewind to one of your messages"
                    )
                return index
    raise AssertionError("unreachable")


def user_messages(records: Sequence[Any]) -> list[tuple[int, str]]:
    """Every user message: its number and its text."""
    found = []
    seen = 0
    for record in records:
        if is_message(record):
            seen += 1
            if isinstance(record, UserRecord):
                found.append((seen, record.text))
    return found


def folder_of(loaded: LoadedSession, root: Path | None = None) -> CheckpointFolder:
    return CheckpointFolder(Path(loaded.header.workspace), root)


def plan_to(
    loaded: LoadedSession, number: int, root: Path | None = None, limits: Limits | None = None
) -> Plan:
    """What rewinding the files to just before message ``number`` would do."""
    index = message_index(loaded.records, number)
    return plan_rewind(folder_of(loaded, root), loaded.records[index:], limits)


def last_rewind(loaded: LoadedSession) -> RewindRecord:
    for record in reversed(loaded.records):
        if isinstance(record, RewindRecord):
            return record
    raise RewindError("this session has no rewind to undo")


def undo_plan(
    loaded: LoadedSession, root: Path | None = None, limits: Limits | None = None
) -> tuple[Plan, RewindRecord]:
    """The plan that puts back what the session's last rewind replaced."""
    last = last_rewind(loaded)  # undoing its changes is what the planner does with any record
    return plan_rewind(folder_of(loaded, root), [last], limits), last


def apply_plan(
    folder: CheckpointFolder,
    plan: Plan,
    overwrite: Callable[[PlannedFile], bool],
    record: Callable[[RewindRecord], None],
    *,
    to: int | None,
    undoes: str | None = None,
    fork: str | None = None,
    limits: Limits | None = None,
) -> RewindResult:
    """Change the files of ``plan`` (a conflict only where ``overwrite`` says so); ``record``
    gets the rewind record once the rewind is committed. ``limits``: config's, for keeping the
    files it replaces (so the rewind can be undone)."""
    result = RewindResult(session=fork, notices=list(plan.notices))
    chosen: list[PlannedFile] = []
    for item in plan.files:
        if item.action == "conflict" and overwrite(item):
            chosen.append(item)
            continue
        if item.action in ("restore", "delete"):
            chosen.append(item)
            continue
        result.files.append(_row(item, item.action))
    if not chosen:
        return result
    kept = Checkpointer(folder.workspace, root=folder.path.parent, limits=limits).capture_now(
        [item.path for item in chosen]
    )
    rewind = RewindRecord(
        ts=time.time(),
        id=secrets.token_hex(6),
        to=to,
        undoes=undoes,
        store=folder.name,
        files=[RewoundFile(before=b, after=i.target) for b, i in zip(kept, chosen, strict=True)],
        session=fork,
    )

    def committed(left_out: frozenset[str]) -> None:
        files = [f for f in rewind.files if f.after.path not in left_out]
        if files:  # a rewind that changed nothing is not one to undo
            record(rewind.model_copy(update={"files": files}) if left_out else rewind)

    failed = apply(folder, [item.change() for item in chosen], committed)
    failures = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in failed}
    for item in chosen:
        if item.path in failures:
            result.files.append(_row(item, "conflict", failures[item.path]))
        else:
            result.files.append(_row(item, DONE[item.overwrite_action]))
    result.files.sort(key=lambda row: row["path"])
    return result


def _row(item: PlannedFile, action: str, why: str | None = None) -> dict[str, str]:
    return {"path": item.path, "action": action, "summary": item.summary, "why": why or item.why}


def planned_rows(plan: Plan) -> list[dict[str, str]]:
    """A dry run's rows: what would be done, conflicts as conflicts."""
    return [_row(item, DONE.get(item.action, item.action)) for item in plan.files]


def fork_before(store: SessionStore, source: str, number: int, title: str | None = None) -> str:
    """A new session holding the conversation just before message ``number``; returns its id."""
    loaded = store.load(source)
    index = message_index(loaded.records, number)
    name = title or f"rewind of {loaded.title} to before message {number}"
    if number > 1:
        return fork_session(store, source, number - 1, name)[0].session_id
    header = loaded.header
    writer = store.create(
        profile=header.profile,
        protocol=header.protocol,
        model=header.model,
        workspace=header.workspace,
        base_url=header.base_url,
        api_key_env=header.api_key_env,
        title=name,
    )
    with writer:
        for record in loaded.records[:index]:
            if not (isinstance(record, NoteRecord) and record.kind == "rename"):
                writer.append(record, sync=False)
        text = f"forked from {header.id} before message 1"
        writer.append(NoteRecord(kind="fork", text=text), sync=True)
    if writer.error is not None:
        with contextlib.suppress(SessionError):
            store.delete(writer.session_id)
        raise SessionError(f"cannot write the fork: {writer.error}")
    return writer.session_id


def perform(
    store: SessionStore,
    writer: Any,
    loaded: LoadedSession,
    plan: Plan | None,
    overwrite: Callable[[PlannedFile], bool],
    *,
    to: int | None,
    conversation: bool,
    undoes: str | None = None,
    limits: Limits | None = None,
) -> RewindResult:
    """The app's rewind of its open session (``writer`` is the session's own): files by
    ``plan`` (None: leave them), then, with ``conversation``, a fork ending before ``to``."""
    fork = fork_before(store, loaded.id, to) if conversation and to is not None else None
    if plan is None:
        return RewindResult(session=fork)
    fork_writer = store.open_for_append(fork) if fork else None

    def record(rewind: RewindRecord) -> None:
        writer.append(rewind, sync=True)
        if fork_writer is not None:
            fork_writer.append(rewind, sync=True)

    try:
        folder = folder_of(loaded)
        return apply_plan(
            folder, plan, overwrite, record, to=to, undoes=undoes, fork=fork, limits=limits
        )
    finally:
        if fork_writer is not None:
            fork_writer.close()
