"""Opening and replacing files the way the file tools need: no FIFOs, no half-written files."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO

from .spec import ToolFailure


def open_regular_file(path: Path, shown: str) -> BinaryIO:
    """Open a resolved path for reading, refusing anything but a regular file.

    ``O_NONBLOCK`` keeps a FIFO from blocking the open; ``O_NOFOLLOW`` refuses a symlink swapped
    in after the sandbox check.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ToolFailure(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise ToolFailure(f"{shown} is a directory") from None
    except OSError as exc:
        raise ToolFailure(describe_os_error(exc, shown)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise ToolFailure(f"{shown} is {kind}")
    return os.fdopen(fd, "rb")


def write_atomically(target: Path, data: bytes) -> None:
    """Replace ``target`` with ``data`` all at once: readers see the old file or the new one.

    A temporary file in the same folder is written, synced and renamed over the target. An
    existing file keeps its permission bits; a new one gets the usual umask-based mode.
    """
    try:
        old_mode: int | None = stat.S_IMODE(os.lstat(target).st_mode)
    except FileNotFoundError:
        old_mode = None
    temporary = target.with_name(f".tui-agent-{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if old_mode is not None:
                os.fchmod(handle.fileno(), old_mode)
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def describe_os_error(exc: OSError, shown: str) -> str:
    """An OS error as one line naming the workspace path, not this machine's absolute path."""
    return f"{shown}: {exc.strerror or type(exc).__name__}"
