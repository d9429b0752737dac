"""What the session picker shows for one file, read cheaply (most records are not parsed)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .codec import LineError, clean_line, decode_line, sniff_type
from .records import HeaderRecord, NoteRecord, UserRecord
from .titles import session_title

# Types that only need counting (or nothing): their lines are never parsed for a summary.
_COUNTED = frozenset({"assistant"})
_IGNORED = frozenset({"truncated", "decision", "tool_result", "tool_start", "withdraw"})


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One line of the session list."""

    id: str
    title: str
    created: float
    updated: float  # the file's modification time
    profile: str
    protocol: str
    model: str
    messages: int  # user and assistant records
    workspace: str
    path: Path


def summarize(path: Path) -> SessionSummary | None:
    """The summary of one session file; None if it cannot be read or holds no record."""
    header: HeaderRecord | None = None
    first_user: str | None = None
    rename: str | None = None
    messages = 0
    seen = False
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a device or a pipe would never end
            return None
        updated = info.st_mtime
        with path.open("rb") as file:
            for raw in file:
                line = clean_line(raw.rstrip(b"\n"))
                if not line:
                    continue
                kind = sniff_type(line)
                if kind in _IGNORED or (kind in _COUNTED and line.endswith(b"}")):
                    seen = True
                    messages += kind in _COUNTED
                    continue
                try:
                    record, _ = decode_line(line)
                except LineError:
                    continue
                seen = True
                if isinstance(record, HeaderRecord):
                    header = header or record
                elif isinstance(record, UserRecord):
                    messages += 1
                    first_user = first_user if first_user is not None else record.text
                elif isinstance(record, NoteRecord) and record.kind == "rename":
                    rename = record.text
                elif record.type == "assistant":
                    messages += 1
    except OSError:
        return None
    if not seen:
        return None
    return SessionSummary(
        id=header.id if header else path.stem,
        title=session_title(rename, header.title if header else None, first_user),
        created=header.created if header else updated,
        updated=updated,
        profile=header.profile if header else "",
        protocol=header.protocol if header else "",
        model=header.model if header else "",
        messages=messages,
        workspace=header.workspace if header else "",
        path=path,
    )


def same_workspace(a: str, b: str) -> bool:
    """True when two workspace paths name the same folder."""
    if not a or not b:
        return False
    return os.path.realpath(os.path.expanduser(a)) == os.path.realpath(os.path.expanduser(b))


def read_header(path: Path, max_lines: int = 64) -> HeaderRecord | None:
    """The session's header, read from the first lines only; None if it has none there."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            return None
        with path.open("rb") as file:
            for number, raw in enumerate(file):
                if number >= max_lines:
                    return None
                line = clean_line(raw.rstrip(b"\n"))
                if not line or sniff_type(line) != "header":
                    continue
                try:
                    record, _ = decode_line(line)
                except LineError:
                    continue
                if isinstance(record, HeaderRecord):
                    return record
    except OSError:
        return None
    return None
