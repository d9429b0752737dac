"""What the saved sessions refer to in the checkpoint folders, and which sessions keep it.

A session refers to the folder of its workspace (its header) and to every folder its
``checkpoint`` and ``rewind`` records name; in them, to blobs (``sha256:`` digests, a snapshot's
``modes``) and to objects of the shadow repository (``tree``, ``git:`` digests). A session keeps
what it refers to while it was changed within ``keep_days`` (0: always), and while it is open.

Only the lines that can refer to checkpoint data are parsed (the type at the start of a line is
read cheaply). A session that cannot be read whole (a damaged line that may be a checkpoint, an
unreadable file, a newer format) blocks: nothing of the folders it may refer to is removed; one
whose workspace is unknown (no readable header) blocks every folder.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..session.codec import LineError, clean_line, decode_line, sniff_type
from ..session.records import (
    FORMAT_VERSION,
    CapturedFile,
    CheckpointDoneRecord,
    CheckpointRecord,
    HeaderRecord,
    RewindRecord,
)
from ..session.store import SUFFIX, SessionStore
from .folder import store_name

DAY_S = 86_400.0
# Records that never name checkpoint data: their lines are not parsed.
_UNRELATED = frozenset(
    {"user", "assistant", "truncated", "decision", "tool_result", "tool_start", "withdraw",
     "note", "tools", "compaction"}
)  # fmt: skip
_NULS = re.compile(b"\x00+")


@dataclass
class SessionRefs:
    """One session file and what it refers to."""

    path: Path
    kept: bool = False
    stores: set[str] = field(default_factory=set)
    blobs: set[str] = field(default_factory=set)  # sha256 of the blob store
    trees: set[str] = field(default_factory=set)  # snapshots of the shadow repository
    objects: set[str] = field(default_factory=set)  # other shadow objects (git: digests)
    problem: str = ""  # why it could not be read whole ('' : it was)
    everywhere: bool = False  # its workspace is unknown: it blocks every folder

    @property
    def id(self) -> str:
        return self.path.stem


@dataclass
class Referrers:
    """Every saved session, read for what it refers to."""

    sessions: list[SessionRefs] = field(default_factory=list)
    problem: str = ""  # the sessions folder could not be listed: every folder is blocked

    def of(self, store: str) -> list[SessionRefs]:
        return [s for s in self.sessions if store in s.stores]

    def blocking(self, store: str) -> list[str]:
        """Why nothing of ``store`` may be removed ([]: it may)."""
        if self.problem:
            return [self.problem]
        return [
            f"session {s.id} cannot be read whole ({s.problem}); fix or delete it"
            for s in self.sessions
            if s.problem and (s.everywhere or store in s.stores)
        ]


def read_referrers(directory: Path, keep_days: int, now: float) -> Referrers:
    """Every session file in ``directory`` (a sessions folder), read (see the module)."""
    found = Referrers()
    try:
        with os.scandir(directory) as entries:
            paths = sorted(Path(e.path) for e in entries if e.name.endswith(SUFFIX))
    except FileNotFoundError:
        return found
    except OSError as exc:
        found.problem = f"the sessions folder cannot be read ({exc.strerror or exc})"
        return found
    store = SessionStore(directory)
    for path in paths:
        try:
            info = path.stat()
        except FileNotFoundError:
            continue  # deleted since it was listed
        except OSError as exc:
            found.sessions.append(_unreadable(path, exc))
            continue
        if not stat.S_ISREG(info.st_mode):
            continue  # a folder or a pipe is not a session (the store lists none)
        refs = read_refs(path)
        recent = keep_days == 0 or info.st_mtime >= now - keep_days * DAY_S
        refs.kept = recent or store.is_open(path)
        found.sessions.append(refs)
    return found


def _unreadable(path: Path, exc: OSError) -> SessionRefs:
    why = exc.strerror or type(exc).__name__
    return SessionRefs(path, kept=True, problem=f"unreadable: {why}", everywhere=True)


def read_refs(path: Path) -> SessionRefs:
    """What one session file refers to."""
    refs = SessionRefs(path)
    problems: list[str] = []
    header: HeaderRecord | None = None
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            refs.problem, refs.everywhere = "not a regular file", True
            return refs
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                line = clean_line(raw.rstrip(b"\n"))
                for piece in _NULS.split(line) if b"\x00" in line else [line]:
                    piece = clean_line(piece)
                    if not piece or sniff_type(piece) in _UNRELATED:
                        continue
                    try:
                        record, _replaced = decode_line(piece)
                    except LineError as exc:
                        problems.append(f"line {number}: {exc}")
                        continue
                    if isinstance(record, HeaderRecord):
                        header = header or record
                    _collect(refs, record)
    except OSError as exc:
        return _unreadable(path, exc)
    if header is None:
        problems.insert(0, "no readable header, so its workspace is unknown")
        refs.everywhere = True
    elif header.version > FORMAT_VERSION:
        problems.insert(0, f"written by a newer tui-agent (format {header.version})")
    more = f"; {len(problems) - 3} more" if len(problems) > 3 else ""
    refs.problem = "; ".join(problems[:3]) + more
    return refs


def _collect(refs: SessionRefs, record: object) -> None:
    if isinstance(record, HeaderRecord):
        if record.workspace:
            refs.stores.add(store_name(Path(record.workspace)))
    elif isinstance(record, CheckpointRecord | CheckpointDoneRecord):
        if isinstance(record, CheckpointRecord):
            refs.stores.add(record.store)
        _files(refs, record.files)
        if record.tree:
            refs.trees.add(record.tree)
        if record.modes:
            refs.blobs.add(record.modes)
    elif isinstance(record, RewindRecord):
        refs.stores.add(record.store)
        _files(refs, [f.before for f in record.files] + [f.after for f in record.files])


def _files(refs: SessionRefs, files: list[CapturedFile]) -> None:
    for item in files:
        algorithm, _, value = item.digest.partition(":")
        if algorithm == "sha256" and value:
            refs.blobs.add(value)
        elif algorithm == "git" and value:
            refs.objects.add(value)
