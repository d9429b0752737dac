"""Opening and replacing files the way the file tools need: no FIFOs, no half-written files, and
no symlink followed between the sandbox check and the use.

The sandbox resolves a path to a real path with no symlink in it. Every open here walks that
path down from the workspace one folder descriptor at a time with ``O_NOFOLLOW``, so a folder or
file swapped for a symlink after the check (by a command still running in the background, say)
is refused instead of followed out of the workspace.

A regular file with more than one hard link is refused too (read, edited or replaced): a hard
link is the same file under another name, and that name may be outside the workspace, where no
path check can see it. Whether it is cannot be known without searching every file system, so no
file tool touches such a file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .spec import ToolFailure
from .text_files import open_folder_beneath

_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_regular_file(path: Path, shown: str, workspace: Path) -> BinaryIO:
    """Open a resolved path inside ``workspace`` for reading, refusing anything but a regular
    file. ``O_NONBLOCK`` keeps a FIFO from blocking the open."""
    try:
        with folder_of(path, workspace) as (folder, name):
            fd = os.open(name, _FILE_FLAGS, dir_fd=folder)
    except FileNotFoundError:
        raise ToolFailure(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise ToolFailure(f"{shown} is a directory") from None
    except OSError as exc:
        raise ToolFailure(describe_os_error(exc, shown)) from None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(status.st_mode) else "not a regular file"
        raise ToolFailure(f"{shown} is {kind}")
    if status.st_nlink > 1:
        os.close(fd)
        raise ToolFailure(hard_link_refusal(shown, status.st_nlink))
    return os.fdopen(fd, "rb")


def hard_link_refusal(shown: str, links: int) -> str:
    """Why a file with several hard links is neither read nor changed."""
    return (
        f"{shown} has {links} hard links: the same file may be reachable outside the workspace "
        "under another name, so the file tools neither read nor change it"
    )


def open_folder(path: Path, workspace: Path) -> int:
    """A descriptor of a resolved folder inside ``workspace``, reached without following a
    symlink. Raises ``OSError``."""
    return open_folder_beneath(os.path.realpath(workspace), _parts(path, workspace))


def make_folders(path: Path, workspace: Path) -> None:
    """Create a resolved folder inside ``workspace`` and its missing parents, one component at a
    time from the workspace, never through a symlink. Raises ``OSError``."""
    fd = open_folder_beneath(os.path.realpath(workspace), ())
    try:
        for part in _parts(path, workspace):
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            inner = os.open(part, _FOLDER_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def write_atomically(target: Path, data: bytes, workspace: Path, shown: str = "") -> None:
    """Replace ``target`` (resolved, inside ``workspace``) with ``data`` all at once: readers see
    the old file or the new one.

    A temporary file in the same folder is written, synced and renamed over the target; a
    symlink at the target is replaced, never followed. An existing file keeps its permission
    bits; a new one gets the usual umask-based mode. A file with several hard links is refused
    (``shown`` names it in the error).
    """
    with folder_of(target, workspace) as (folder, name):
        try:
            old = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            old_mode: int | None = None
        else:
            if stat.S_ISREG(old.st_mode) and old.st_nlink > 1:
                raise ToolFailure(hard_link_refusal(shown or target.name, old.st_nlink))
            old_mode = stat.S_IMODE(old.st_mode)
        temporary = f".tui-agent-{secrets.token_hex(6)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temporary, flags, 0o666, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if old_mode is not None:
                    os.fchmod(handle.fileno(), old_mode)
                os.fsync(handle.fileno())
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=folder)
            raise


def describe_os_error(exc: OSError, shown: str) -> str:
    """An OS error as one line naming the workspace path, not this machine's absolute path."""
    if exc.errno == errno.ELOOP:
        return f"{shown}: a symbolic link appeared in the path; refusing to follow it"
    return f"{shown}: {exc.strerror or type(exc).__name__}"


@contextlib.contextmanager
def folder_of(path: Path, workspace: Path) -> Iterator[tuple[int, str]]:
    """A descriptor of the folder holding a resolved path inside ``workspace``, and its name."""
    parts = _parts(path, workspace)
    if not parts:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
    folder = open_folder_beneath(os.path.realpath(workspace), parts[:-1])
    try:
        yield folder, parts[-1]
    finally:
        os.close(folder)


def _parts(path: Path, workspace: Path) -> tuple[str, ...]:
    return path.relative_to(os.path.realpath(workspace)).parts
