"""Where a workspace's checkpoints live: one folder per workspace in the app's data folder.

``<data>/checkpoints/<store>/`` holds ``blobs/`` (contents captured by the file tools and by
rewinds), ``shadow.git`` (the shadow repository of command snapshots), ``journal.json`` while a
rewind is being applied, and ``lock`` (taken while a snapshot, a rewind or a prune runs, so two
sessions on one workspace take turns). ``store`` is derived from the workspace's real path; the
``workspace`` file beside them names it.
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


def checkpoints_root() -> Path:
    """Where every workspace's checkpoint folder is: ``<data>/checkpoints``."""
    return data_dir() / "checkpoints"


class StoreBusyError(RuntimeError):
    """The lock of a checkpoint folder is held (a snapshot or a rewind is running)."""


class CheckpointFolder:
    def __init__(self, workspace: Path, root: Path | None = None, *, name: str = "") -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.name = name or store_name(self.workspace)
        base = root if root is not None else checkpoints_root()
        self.path = base.absolute() / self.name
        self.blobs = BlobStore(self.path / "blobs")
        self.shadow = self.path / "shadow.git"
        self.journal = self.path / "journal.json"
        self.labelled = True  # False: a folder found on disk without its workspace's name

    @classmethod
    def existing(cls, path: Path) -> CheckpointFolder:
        """A checkpoint folder found on disk; its workspace is read from its label (when the
        label is missing, ``workspace`` is the folder itself and ``labelled`` is False)."""
        try:
            named = (path / "workspace").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            named = ""
        folder = cls(Path(named) if named else path, path.parent, name=path.name)
        folder.labelled = bool(named)
        return folder

    def ensure(self) -> None:
        """Create the folder (0700) and say whose it is; raises OSError."""
        ensure_private_dir(self.path)
        label = self.path / "workspace"
        if self.labelled and not label.exists():
            label.write_text(str(self.workspace) + "\n", encoding="utf-8")

    @contextlib.contextmanager
    def locked(self, *, wait: bool = True) -> Iterator[None]:
        """The workspace's checkpoint lock (waits for another session's snapshot or rewind;
        without ``wait``, StoreBusyError when it is held)."""
        self.ensure()
        fd = os.open(self.path / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    why = f"the checkpoints of {self.workspace} are in use"
                    raise StoreBusyError(why) from None
            yield
        finally:
            os.close(fd)
