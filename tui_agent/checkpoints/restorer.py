"""Applying a rewind: every file replaced atomically, the whole rewind crash-safe.

1. Under the workspace's checkpoint lock, a journal is written (phase ``staging``), then every
   new content is written, synced, to a temporary file beside its target (a symlink is made as a
   temporary symlink); nothing the person sees has changed yet.
2. The journal is rewritten as ``committed`` (one atomic rename): from here on the rewind is
   done, whatever happens.
3. Each temporary file is renamed over its target, each file to delete is unlinked, and the
   journal is removed.

A file that cannot be staged (a folder on its way swapped for a symlink or a file, a full disk)
is left out of the committed journal and named in the result; the rest goes on. An error
before the commit (the journal itself cannot be written) removes what was staged and the
journal: nothing changed.

``recover`` (run before every capture, plan and rewind of the workspace) finishes what a crash
left: a ``staging`` journal is rolled back (its temporary files removed), a ``committed`` one
rolled forward (the renames and unlinks that had not happened yet). Either way the workspace
holds the old state or the new one, never a mix. Every path is walked with ``O_NOFOLLOW``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .files import UnsafePathError, blocked_by, parent_of
from .folder import CheckpointFolder

_TEMP = ".tui-agent-rewind-{id}-{n}.tmp"
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Change:
    """What one path becomes: ``kind`` file (``data``, ``mode``), symlink (``data`` is the
    target) or missing (deleted; ``folders`` made by the agent are removed when left empty)."""

    path: str
    kind: str
    data: bytes = b""
    mode: int = 0o644
    folders: tuple[str, ...] = ()


def _write_json(folder: CheckpointFolder, value: dict[str, Any]) -> None:
    temporary = folder.journal.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(value, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, folder.journal)
    _sync_folder(str(folder.path))


def _sync_folder(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def apply(
    folder: CheckpointFolder,
    changes: Sequence[Change],
    on_commit: Callable[[frozenset[str]], None] | None = None,
    *,
    pause: Callable[[str], None] | None = None,
) -> list[str]:
    """Apply ``changes``; returns the paths that could not be changed (with why). A file that
    cannot be staged (a folder on its way is now a symlink or a file, a full disk...) is left
    as it is and named; the others go on. ``on_commit`` runs once the rewind is committed,
    before any file changes (the session record), with the paths left out. ``pause`` is for
    tests: called between steps with the step's name. Raises OSError only when the journal
    cannot be written; then nothing has changed and no journal is left."""
    step = pause or (lambda _name: None)
    with folder.locked():
        recover_locked(folder)
        token = secrets.token_hex(6)
        items: list[dict[str, Any]] = [
            {
                "path": change.path,
                "temp": None if change.kind == "missing" else _TEMP.format(id=token, n=n),
                "folders": list(change.folders),
            }
            for n, change in enumerate(changes)
        ]
        journal: dict[str, Any] = {"id": token, "phase": "staging", "items": items}
        failed: list[str] = []
        try:
            _write_json(folder, journal)
            step("journal")
            staged = []
            for change, item in zip(changes, items, strict=True):
                temp = item["temp"]
                why = _stage(folder, change, temp) if temp is not None else _reach(folder, change)
                if why:
                    failed.append(f"{item['path']}: {why}")
                else:
                    staged.append(item)
                step("staged")
            journal = {"id": token, "phase": "committed", "items": staged}
            _write_json(folder, journal)
        except BaseException:
            for item in items:
                _unstage(folder, item)
            folder.journal.unlink(missing_ok=True)
            raise
        step("committed")
        if on_commit is not None:
            on_commit(frozenset(line.split(": ", 1)[0] for line in failed))
        for item in staged:
            why = _finish(folder, item)
            step("applied")
            if why:
                failed.append(f"{item['path']}: {why}")
        folder.journal.unlink()
        return failed


def _stage(folder: CheckpointFolder, change: Change, temp: str) -> str:
    """The new content written beside its target; '' or why it could not be."""
    try:
        with parent_of(folder.workspace, change.path, create=True) as (fd, _name):
            try:
                if change.kind == "symlink":
                    os.symlink(os.fsdecode(change.data), temp, dir_fd=fd)
                else:
                    out = os.open(temp, _NEW, 0o600, dir_fd=fd)
                    with os.fdopen(out, "wb") as handle:
                        handle.write(change.data)
                        handle.flush()
                        os.fchmod(handle.fileno(), change.mode & 0o7777)
                        os.fsync(handle.fileno())
                os.fsync(fd)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=fd)
                raise
    except (OSError, UnsafePathError) as exc:
        return _why(folder, change.path, exc)
    return ""


def _reach(folder: CheckpointFolder, change: Change) -> str:
    """Whether the folder of a file to delete can be reached; '' or why not."""
    try:
        with parent_of(folder.workspace, change.path):
            return ""
    except FileNotFoundError:
        return ""  # nothing to delete
    except (OSError, UnsafePathError) as exc:
        return _why(folder, change.path, exc)


def _why(folder: CheckpointFolder, rel: str, exc: Exception) -> str:
    """Why a path could not be changed, in words (which folder on its way is not one)."""
    if isinstance(exc, OSError) and exc.errno in (errno.ELOOP, errno.ENOTDIR):
        blocking = blocked_by(folder.workspace, rel)
        if blocking:
            return f"not changed: {blocking} is now a symbolic link or a file (never followed)"
    if isinstance(exc, OSError):
        return f"not changed: {exc.strerror or type(exc).__name__}"
    return f"not changed: {exc}"


def _finish(folder: CheckpointFolder, item: dict[str, Any]) -> str:
    """Put one item in place (idempotent: a second run after a crash does nothing more)."""
    try:
        with parent_of(folder.workspace, item["path"]) as (fd, name):
            if item["temp"] is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=fd)
            else:
                with contextlib.suppress(FileNotFoundError):  # renamed before a crash
                    os.replace(item["temp"], name, src_dir_fd=fd, dst_dir_fd=fd)
            os.fsync(fd)
    except FileNotFoundError:
        return ""
    except (OSError, UnsafePathError) as exc:
        return _why(folder, item["path"], exc)
    for made in reversed(item.get("folders") or []):
        with contextlib.suppress(OSError), parent_of(folder.workspace, made) as (fd, name):
            os.rmdir(name, dir_fd=fd)  # only when empty
    return ""


def _unstage(folder: CheckpointFolder, item: dict[str, Any]) -> None:
    if item["temp"] is None:
        return
    with (
        contextlib.suppress(OSError, UnsafePathError),
        parent_of(folder.workspace, item["path"]) as (fd, _n),
    ):
        os.unlink(item["temp"], dir_fd=fd)


def recover(folder: CheckpointFolder) -> str:
    """Finish or undo a rewind a crash interrupted; returns what was done ('' if nothing)."""
    if not folder.journal.exists():
        return ""
    with folder.locked():
        return recover_locked(folder)


def recover_locked(folder: CheckpointFolder) -> str:
    try:
        journal = json.loads(folder.journal.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ""
    except (OSError, ValueError, RecursionError):
        folder.journal.unlink(missing_ok=True)
        return "an unreadable rewind journal was removed"
    items = journal.get("items", [])
    if journal.get("phase") == "committed":
        for item in items:
            _finish(folder, item)
        done = f"an interrupted rewind was completed ({len(items)} file(s))"
    else:
        for item in items:
            _unstage(folder, item)
        done = "an interrupted rewind was undone before it changed anything"
    folder.journal.unlink(missing_ok=True)
    return done
