"""Reading a workspace file's state without ever following a symlink.

A path is walked down from the workspace one folder descriptor at a time with ``O_NOFOLLOW``;
the last component is looked at with ``lstat``: a symlink is a state of its own (its target is
its content), never a way to another file. A folder on the way that is a symlink makes the path
"other": nothing behind it is read or written.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..session.records import CapturedFile
from .blobs import BlobStore

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CHUNK = 1 << 20


class UnsafePathError(ValueError):
    """A path that is not a plain relative path inside the workspace."""


def parts_of(rel: str) -> tuple[str, ...]:
    """The components of a workspace-relative path; refuses '..', absolute paths and NULs."""
    path = PurePosixPath(rel)
    if not rel or "\0" in rel or path.is_absolute() or any(p in ("..", ".") for p in path.parts):
        raise UnsafePathError(f"not a path inside the workspace: {rel!r}")
    if path.parts and path.parts[0] == ".git":
        raise UnsafePathError(f"the workspace's own .git is never touched: {rel!r}")
    return path.parts


def open_root(workspace: Path) -> int:
    return os.open(os.path.realpath(workspace), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


@contextlib.contextmanager
def parent_of(workspace: Path, rel: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
    """The folder holding ``rel`` (a descriptor) and the last name. With ``create``, missing
    folders are made (0o777 & umask), one at a time, never through a symlink. Raises OSError:
    ELOOP or ENOTDIR when a folder on the way is a symlink or a file."""
    parts = parts_of(rel)
    fd = open_root(workspace)
    try:
        for part in parts[:-1]:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
            inner = os.open(part, _FOLDER, dir_fd=fd)
            os.close(fd)
            fd = inner
        yield fd, parts[-1]
    finally:
        os.close(fd)


def blocked_by(workspace: Path, rel: str) -> str:
    """The first folder on the way to ``rel`` that is not a real folder (a symlink, a file), as
    a workspace-relative path; '' when there is none."""
    parts = parts_of(rel)
    root = os.path.realpath(workspace)
    for end in range(1, len(parts)):
        folder = "/".join(parts[:end])
        try:
            info = os.lstat(os.path.join(root, folder))
        except OSError:
            return ""
        if not stat.S_ISDIR(info.st_mode):
            return folder
    return ""


@dataclass(frozen=True, slots=True)
class Seen:
    """A file's state now, with both digests (so it compares with any capture)."""

    kind: str  # missing, file, symlink, other
    mode: int = 0
    size: int = 0
    sha256: str = ""
    git: str = ""


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def look(
    workspace: Path, rel: str, *, keep: BlobStore | None = None, max_bytes: int | None = None
) -> tuple[Seen, str]:
    """The state of ``rel`` now; with ``keep``, its content is stored there too. Returns the
    state and a note ('' or why the file is not covered: too large, unreadable)."""
    try:
        with parent_of(workspace, rel) as (folder, name):
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                return Seen("missing"), ""
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                target = os.fsencode(os.readlink(name, dir_fd=folder))
                if keep is not None:
                    keep.put(target)
                sha = hashlib.sha256(target).hexdigest()
                return Seen("symlink", mode, len(target), sha, git_blob_id(target)), ""
            if not stat.S_ISREG(info.st_mode):
                return Seen("other", mode), ""
            if max_bytes is not None and info.st_size > max_bytes:
                return Seen("file", mode, info.st_size), "over the size limit"
            return _read_file(folder, name, keep), ""
    except FileNotFoundError:
        return Seen("missing"), ""
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return Seen("other"), "a symbolic link or a file is in its path"
        return Seen("other"), exc.strerror or type(exc).__name__


def _read_file(folder: int, name: str, keep: BlobStore | None) -> Seen:
    fd = os.open(name, _FILE, dir_fd=folder)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):  # swapped since the lstat
            return Seen("other", stat.S_IMODE(info.st_mode))
        data = handle.read()
    if keep is not None:
        keep.put(data)
    sha = hashlib.sha256(data).hexdigest()
    return Seen("file", stat.S_IMODE(info.st_mode), len(data), sha, git_blob_id(data))


def captured(
    rel: str, seen: Seen, note: str = "", folders: list[str] | None = None
) -> CapturedFile:
    """A record's form of a state: the content by its sha256 (kept in the blob store)."""
    if note or (seen.kind in ("file", "symlink") and not seen.sha256):
        return CapturedFile(path=rel, kind="uncovered", mode=seen.mode, size=seen.size)
    digest = f"sha256:{seen.sha256}" if seen.kind in ("file", "symlink") else ""
    kind = seen.kind if seen.kind in ("missing", "file", "symlink") else "other"
    return CapturedFile(
        path=rel,
        kind=kind,  # type: ignore[arg-type]
        mode=seen.mode,
        size=seen.size,
        digest=digest,
        folders=folders or [],
    )


def matches(seen: Seen, state: CapturedFile) -> bool:
    """Whether a file now is in ``state`` (content and kind; the mode bits too for exact
    captures, and for the shadow repository's, whose snapshots keep the modes git does not)."""
    if state.kind in ("other", "uncovered"):
        return False
    if seen.kind != state.kind:
        return False
    if state.kind == "missing":
        return True
    algorithm, _, value = state.digest.partition(":")
    if algorithm == "sha256":
        same_mode = state.kind == "symlink" or seen.mode == state.mode
        return seen.sha256 == value and same_mode
    if algorithm == "git":
        return seen.git == value and (state.kind == "symlink" or seen.mode == state.mode)
    return False


def missing_folders(workspace: Path, rel: str) -> list[str]:
    """The folders of ``rel`` that do not exist yet, outermost first (a write makes them)."""
    parts = parts_of(rel)
    root = os.path.realpath(workspace)
    found: list[str] = []
    for end in range(1, len(parts)):
        folder = "/".join(parts[:end])
        if found or not os.path.lexists(os.path.join(root, folder)):
            found.append(folder)
    return found


def read_bytes(workspace: Path, rel: str, limit: int) -> bytes | None:
    """A regular file's content (None: not a regular file, unreadable, or over ``limit``)."""
    try:
        with parent_of(workspace, rel) as (folder, name):
            fd = os.open(name, _FILE, dir_fd=folder)
            with os.fdopen(fd, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    return None
                data = handle.read(limit + 1)
    except (OSError, UnsafePathError):
        return None
    return data if len(data) <= limit else None
