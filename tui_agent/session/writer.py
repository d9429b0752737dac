"""The one writer of a session file: redact, then write each record as one line.

- The file is opened O_APPEND and held under an OS advisory lock (flock), which the kernel drops
  when the process dies, so a crash never leaves a stale lock. The descriptor is not inherited
  by child processes (Python's default), so a tool that outlives us cannot hold it either.
- If the file's last byte is not a newline (a write torn by a crash), the first append starts
  with one, so the torn tail never merges with a new record.
- A line goes down in one write() when it is short; a turn's raw events (tens of MB) are encoded
  and written a piece at a time (``codec.encode_pieces``), never built whole. Only this process
  writes the file (the lock), and a line cut short is a torn tail as above.
- fsync after records that end a turn or a tool step (``SYNC_TYPES``), or when asked.
- When the disk refuses (read-only, full, no permission), the writer degrades: ``degraded``
  holds a message the UI can show, records are kept in ``unsaved`` and ``append`` never raises.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from pydantic import BaseModel

from .codec import encode_pieces
from .errors import SessionClosedError, SessionLockedError
from .paths import ensure_private_dir
from .record_redaction import redact_record
from .records import HeaderRecord
from .redaction import Redactor

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locking, documented
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

SYNC_TYPES = frozenset({"header", "user", "assistant", "truncated", "tool_start", "tool_result"})
_FLAGS = os.O_RDWR | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
_UNLOCKABLE = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}
_WRITE = 1 << 18  # how much of a long line is gathered for one write()

R = TypeVar("R", bound=BaseModel)


def lock_fd(fd: int, session_id: str) -> None:
    """Take the session's exclusive lock without waiting; SessionLockedError if it is held."""
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionLockedError(
            f"session {session_id} is open in another tui-agent process"
        ) from None
    except OSError as exc:
        if exc.errno not in _UNLOCKABLE:
            raise
        # A file system without locks (some network mounts): go on, unprotected.
        log.warning("session %s: file locks are not supported here (%s)", session_id, exc)


def is_held(path: Path) -> bool:
    """Whether a writer (of this process or another) holds the session file now; True when it
    cannot be told (unreadable, no file locks here). A shared lock is taken for a moment to
    ask: it conflicts with a writer's, never with another such question."""
    if fcntl is None:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:  # BlockingIOError: held; anything else: cannot tell
        return True
    finally:
        os.close(fd)  # closing drops the shared lock
    return False


class SessionWriter:
    """Appends records to one session file; see the module docstring."""

    def __init__(self, path: Path, session_id: str, redactor: Redactor) -> None:
        self.path = path
        self.session_id = session_id
        self.degraded: str | None = None  # for the user: what failed and what it means
        self.error: str | None = None  # just what failed
        self._redactor = redactor
        self._fd: int | None = None
        self._writable = False
        self._needs_newline = False
        self._dirty = False
        self._closed = False
        self._unsaved: list[Any] = []
        self._mutex = threading.Lock()

    @classmethod
    def create(cls, path: Path, header: HeaderRecord, redactor: Redactor) -> SessionWriter:
        """A new session file holding ``header``; FileExistsError only if the name is taken."""
        writer = cls(path, header.id, redactor)
        try:
            ensure_private_dir(path.parent)
        except OSError as exc:
            fd = None
            writer._degrade(f"cannot create the session folder {path.parent}: {exc.strerror}")
        else:
            try:
                fd = os.open(path, _FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                raise
            except OSError as exc:
                fd = None
                writer._degrade(f"cannot create the session file {path}: {exc.strerror}")
        if fd is not None:
            writer._adopt(fd, writable=True)
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o600)  # the umask can only narrow 0600, but be explicit
        writer.append(header, sync=True)
        if writer._fd is not None:
            _fsync_dir(path.parent)  # so the new name itself survives a crash
        return writer

    @classmethod
    def open(cls, path: Path, session_id: str, redactor: Redactor) -> SessionWriter:
        """Open an existing session file for appending (FileNotFoundError if it is missing)."""
        writer = cls(path, session_id, redactor)
        try:
            fd = os.open(path, _FLAGS)
        except (FileNotFoundError, IsADirectoryError):
            raise
        except OSError as exc:
            writer._degrade(f"cannot write to the session file {path}: {exc.strerror}")
            # Still hold the lock through a read-only descriptor: one owner per session.
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                return writer
            writer._adopt(fd, writable=False)
            return writer
        writer._adopt(fd, writable=True)
        try:
            size = os.fstat(fd).st_size
            writer._needs_newline = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        except OSError as exc:
            writer._degrade(f"cannot read the session file {path}: {exc.strerror}")
        return writer

    def _adopt(self, fd: int, *, writable: bool) -> None:
        try:
            lock_fd(fd, self.session_id)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self._writable = writable

    @property
    def unsaved(self) -> list[Any]:
        """Records kept only in memory because the disk refused them (oldest first)."""
        return list(self._unsaved)

    def append(self, record: R, *, sync: bool | None = None) -> R:
        """Redact and write one record; returns the record as stored (stamped and redacted).

        ``ts`` is set to now when it is 0. ``sync`` None means fsync for ``SYNC_TYPES``.
        Never raises for I/O: the writer degrades instead (see ``degraded``).
        """
        with self._mutex:
            if self._closed:
                raise SessionClosedError(f"session {self.session_id} was closed")
            try:
                if getattr(record, "ts", None) == 0.0:
                    record = record.model_copy(update={"ts": time.time()})
                record = redact_record(record, self._redactor)
                pieces = encode_pieces(record)
                first = next(pieces)  # everything that can fail to encode is in the first
            except Exception as exc:  # ValueError, RecursionError; any other is a defect
                if not isinstance(exc, ValueError | RecursionError):
                    log.error("redacting or encoding a record failed", exc_info=True)
                # Never written unredacted, never raised into the loop: kept in memory, and
                # the user is told the session is no longer saved.
                self._unsaved.append(record)
                self._degrade(f"cannot save a {getattr(record, 'type', '')} record ({exc})")
                return record
            if self.degraded is not None or self._fd is None or not self._writable:
                self._unsaved.append(record)
                return record
            try:
                self._write_line(first, pieces)
            except OSError as exc:
                self._unsaved.append(record)
                self._degrade(f"cannot write to the session file {self.path}: {exc.strerror}")
                return record
            if sync is None:
                sync = getattr(record, "type", "") in SYNC_TYPES
            if sync:
                self._sync()
            return record

    def _write_line(self, first: bytes, rest: Iterator[bytes]) -> None:
        """Write one line given in pieces, in writes of up to ``_WRITE`` bytes (one if short)."""
        # Until the whole line is down, assume a torn tail (a short write on a full disk, or an
        # exception between writes): the next line must not join it. A spare newline is harmless.
        buffer = bytearray(b"\n" if self._needs_newline else b"")
        self._needs_newline = True
        buffer += first
        for piece in rest:
            if len(buffer) >= _WRITE:
                self._write_all(buffer)
                buffer.clear()
            buffer += piece
        self._write_all(buffer)
        self._needs_newline = False

    def _write_all(self, buffer: bytearray) -> None:
        assert self._fd is not None
        data = memoryview(buffer)
        try:
            while data:
                written = os.write(self._fd, data)
                if written <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                self._dirty = True
                data = data[written:]
        finally:
            data.release()  # so the buffer can be cleared and grow again

    def _sync(self) -> None:
        if self._fd is None or not self._dirty:
            return
        try:
            os.fsync(self._fd)
        except OSError as exc:
            self._degrade(f"cannot save the session file {self.path}: {exc.strerror}")
        else:
            self._dirty = False

    def _degrade(self, why: str) -> None:
        if self.degraded is None:
            self.error = why
            self.degraded = (
                f"{why}. This session is kept in memory only and will be lost when tui-agent exits."
            )
            log.warning("%s", self.degraded)

    def close(self) -> None:
        """Flush to disk and release the lock. Closing twice is harmless."""
        with self._mutex:
            if self._closed:
                return
            self._closed = True
            if self._fd is not None and self._writable and self.degraded is None:
                self._sync()
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
