"""Fork a session at a message: a new session holding the conversation up to that point.

Messages are numbered as ``tui-agent sessions`` counts them: every user and assistant record in
file order, from 1 (a withdrawn message keeps its number). Forking at message N keeps every record
before message N+1, so the results, decisions and notes that followed message N come along; a
call left without a result gets the "interrupted" result a resume would give it, so the fork can
be continued at once. Rename notes stay behind (the fork's title is in its header), and a
``fork`` note says where the fork came from. The source is only read, so it may be any session
file, and may be open in another process.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..session import LoadedSession, SessionError, SessionStore
from ..session.records import AssistantRecord, NoteRecord, UserRecord
from .history import messages_from_records


@dataclass(frozen=True, slots=True)
class Fork:
    """A fork that was written: its id, where it came from, and how many records it holds."""

    session_id: str
    source_id: str
    at: int
    records: int  # after the header, the fork note included
    repaired: int  # calls that got an "interrupted" result


def is_message(record: Any) -> bool:
    """True for the records that are numbered as messages (user and assistant turns)."""
    return isinstance(record, UserRecord | AssistantRecord)


def message_count(records: Sequence[Any]) -> int:
    """How many numbered messages ``records`` hold."""
    return sum(1 for record in records if is_message(record))


def records_through(records: Sequence[Any], at: int) -> list[Any]:
    """The records up to message ``at`` (1-based) and everything before the next message.

    Raises SessionError when there is no message ``at``.
    """
    total = message_count(records)
    if total == 0:
        raise SessionError("the session has no messages to fork")
    if not 1 <= at <= total:
        raise SessionError(f"there is no message {at}: the session has messages 1 to {total}")
    seen = 0
    for index, record in enumerate(records):
        if is_message(record):
            seen += 1
            if seen == at + 1:
                return list(records[:index])
    return list(records)


def fork_session(
    store: SessionStore, source: str, at: int, title: str | None = None
) -> tuple[Fork, LoadedSession]:
    """Write a fork of ``source`` (an id, a unique prefix or a path) at message ``at``.

    The fork's title is ``title``, else "fork of TITLE at message N", TITLE being the source's
    (its rename, header title or first user message), so a fork says what it is in every
    list. Raises SessionError (with a message for the user) on any failure; a fork that could
    not be written completely is removed.
    """
    loaded = store.load(source)
    kept = [
        record
        for record in records_through(loaded.records, at)
        if not (isinstance(record, NoteRecord) and record.kind == "rename")
    ]
    _, repairs = messages_from_records(kept)
    header = loaded.header
    writer = store.create(
        profile=header.profile,
        protocol=header.protocol,
        model=header.model,
        workspace=header.workspace,
        base_url=header.base_url,
        api_key_env=header.api_key_env,
        title=title if title is not None else f"fork of {loaded.title} at message {at}",
    )
    with writer:
        for record in kept:
            writer.append(record, sync=False)
        for repair in repairs:
            writer.append(repair, sync=False)
        writer.append(
            NoteRecord(kind="fork", text=f"forked from {header.id} at message {at}"), sync=True
        )
    if writer.error is not None:
        # Degraded: part (or none) of the fork is on disk. Leave no half-written session.
        with contextlib.suppress(SessionError):
            store.delete(writer.session_id)
        raise SessionError(f"cannot write the fork: {writer.error}")
    fork = Fork(writer.session_id, header.id, at, len(kept) + len(repairs) + 1, len(repairs))
    return fork, loaded
