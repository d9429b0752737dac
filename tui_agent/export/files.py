"""Writing an export: a 0600 file, an existing one kept unless forced."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_private(path: Path, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path`` as a 0600 file.

    Without ``force`` an existing file (or a dangling symlink) raises FileExistsError and is
    left alone; with it, the file is replaced whole (a temporary file renamed over it).
    """
    data = text.encode("utf-8", "backslashreplace")
    if path.is_dir():
        raise IsADirectoryError(21, "it is a folder", str(path))
    if not force:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            _write_all(fd, data)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        os.close(fd)
        return
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")  # 0600
    try:
        _write_all(fd, data)
        os.close(fd)
        fd = -1
        os.replace(temp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
