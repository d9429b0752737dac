"""Reading a session file back: every readable record, and a list of what had to be skipped.

A bad line never costs the lines after it. Tolerated: a BOM, NUL runs (what a crash can leave
where unflushed blocks were), invalid UTF-8 (replaced, and reported), blank lines, a torn last
line. Only a file with no readable record at all is an error.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .codec import LineError, clean_line, decode_line
from .errors import SessionCorruptError, SessionError, SessionNotFoundError
from .records import FORMAT_VERSION, HeaderRecord, NoteRecord, Record, UserRecord
from .titles import session_title

_NULS = re.compile(b"\x00+")


@dataclass(frozen=True)
class LoadedSession:
    """A session as read from disk. ``records`` excludes the header, in file order."""

    path: Path
    header: HeaderRecord
    records: list[Record] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "line 17: torn or corrupt record skipped"

    @property
    def id(self) -> str:
        return self.header.id

    @property
    def title(self) -> str:
        """The latest rename, else the header's title, else the first user message."""
        rename = None
        first_user = None
        for record in self.records:
            if isinstance(record, NoteRecord) and record.kind == "rename":
                rename = record.text
            elif first_user is None and isinstance(record, UserRecord):
                first_user = record.text
        return session_title(rename, self.header.title, first_user)


def load_session(path: Path) -> LoadedSession:
    """Read ``path``; raises SessionNotFoundError, SessionCorruptError or SessionError."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError
        if not stat.S_ISREG(info.st_mode):  # a device or a pipe would read forever
            raise SessionError(f"{path} is not a regular file, so it is not read as a session")
        data = path.read_bytes()
        mtime = info.st_mtime
    except (FileNotFoundError, NotADirectoryError):
        raise SessionNotFoundError(f"no session file at {path}") from None
    except IsADirectoryError:
        raise SessionNotFoundError(f"{path} is a folder, not a session file") from None
    except OSError as exc:
        raise SessionError(f"cannot read the session file {path}: {exc.strerror}") from None

    header: HeaderRecord | None = None
    records: list[Record] = []
    problems: list[str] = []
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        unterminated = number == len(lines)  # the piece after the last newline (often empty)
        line = clean_line(raw)
        if b"\x00" in raw:
            problems.append(f"line {number}: NUL bytes skipped")
        if not line:
            continue
        for piece in _NULS.split(line) if b"\x00" in line else [line]:
            piece = clean_line(piece)
            if not piece:
                continue
            try:
                record, replaced = decode_line(piece)
            except LineError as exc:
                if unterminated:
                    problems.append(
                        f"line {number}: torn record at the end of the file skipped "
                        "(an interrupted write)"
                    )
                else:
                    problems.append(f"line {number}: {exc} skipped")
                continue
            if replaced:
                problems.append(f"line {number}: invalid UTF-8 replaced")
            if isinstance(record, HeaderRecord):
                if header is None:
                    header = record
                else:
                    problems.append(f"line {number}: second header skipped")
                continue
            records.append(record)

    if header is None:
        if not records:
            raise SessionCorruptError(f"{path} holds no readable session records")
        problems.insert(
            0, "no readable header: the session's profile, model and workspace are unknown"
        )
        created = next((r.ts for r in records if r.ts > 0), mtime)
        header = HeaderRecord(
            id=path.stem, created=created, profile="", protocol="", model="", workspace=""
        )
    elif header.version > FORMAT_VERSION:
        problems.insert(
            0,
            f"written by a newer tui-agent (format {header.version}); unknown records are skipped",
        )
    return LoadedSession(path=path, header=header, records=records, problems=problems)
