"""Where a workspace's checkpoints live: one folder per workspace in the app's data folder.

``<data>/checkpoints/<store>/`` holds ``blobs/`` (contents captured by the file tools and by
rewinds), ``shadow.git`` (the shadow repository of command snapshots), ``journal.json`` while a
rewind is being applied, and ``lock`` (taken while a snapshot or a rewind runs, so two sessions
on one workspace take turns). ``store`` is derived from the workspace's real path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from ..session.paths import data_dir, ensure_private_dir
from .blobs import BlobStore

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


def store_name(workspace: Path) -> str:
    real = os.path.realpath(workspace)
    return "ws-" + hashlib.sha256(os.fsencode(real)).hexdigest()[:24]


class CheckpointFolder:
    def __init__(self, workspace: Path, root: Path | None = None) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.name = store_name(self.workspace)
        base = root if root is not None else data_dir() / "checkpoints"
        self.path = base.absolute() / self.name
        self.blobs = BlobStore(self.path / "blobs")
        self.shadow = self.path / "shadow.git"
        self.journal = self.path / "journal.json"

    def ensure(self) -> None:
        """Create the folder (0700) and say whose it is; raises OSError."""
        ensure_private_dir(self.path)
        label = self.path / "workspace"
        if not label.exists():
            label.write_text(str(self.workspace) + "\n", encoding="utf-8")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The workspace's checkpoint lock (waits for another session's snapshot or rewind)."""
        self.ensure()
        fd = os.open(self.path / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)
