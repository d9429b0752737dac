"""Capturing what a call may change, just before it runs and again right after.

- The file tools (``capture_files``): each file's exact state (content kept in the blob store,
  permission bits, whether it exists; a symlink as a symlink), never through a symlink.
- Any other tool that may change files (``snapshot``): a tree of the shadow repository.

Nothing here raises for a failed capture: the record says what failed, and the call still runs
(it was approved); a rewind then reports it as not covered.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..session.records import CapturedFile, CheckpointDoneRecord, CheckpointRecord
from .files import UnsafePathError, captured, look, missing_folders
from .folder import CheckpointFolder
from .restorer import recover_locked
from .shadow import Limits, ShadowError, ShadowRepo


def _why(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return f"{exc.strerror or type(exc).__name__}" + (
            f": {Path(exc.filename).name}" if exc.filename else ""
        )
    return str(exc)


class Checkpointer:
    """The checkpoints of one workspace (``root``: the checkpoints folder, for tests)."""

    def __init__(
        self, workspace: Path, *, root: Path | None = None, limits: Limits | None = None
    ) -> None:
        self.folder = CheckpointFolder(workspace, root)
        self.limits = limits or Limits()
        self.shadow = ShadowRepo(self.folder, self.limits)

    @property
    def store(self) -> str:
        return self.folder.name

    def _states(self, paths: list[str], keep: bool) -> tuple[list[CapturedFile], list[str]]:
        files: list[CapturedFile] = []
        notes: list[str] = []
        for rel in paths:
            try:
                folders = missing_folders(self.folder.workspace, rel) if keep else []
            except UnsafePathError:
                continue
            seen, note = look(
                self.folder.workspace,
                rel,
                keep=self.folder.blobs if keep else None,
                max_bytes=self.limits.max_file_bytes if keep else None,
            )
            if note:
                notes.append(f"{rel}: {note}")
            files.append(captured(rel, seen, note, folders))
        return files, notes

    def capture_files(self, call_id: str, tool: str, paths: list[str]) -> CheckpointRecord:
        record = CheckpointRecord(
            ts=time.time(), call_id=call_id, tool=tool, method="file", store=self.store
        )
        try:
            with self.folder.locked():
                recover_locked(self.folder)
                files, notes = self._states(paths, keep=True)
        except (OSError, UnsafePathError) as exc:
            return record.model_copy(update={"error": _why(exc)})
        notice = "not covered: " + "; ".join(notes) if notes else None
        return record.model_copy(update={"files": files, "notice": notice})

    def files_after(self, call_id: str, paths: list[str]) -> CheckpointDoneRecord:
        record = CheckpointDoneRecord(ts=time.time(), call_id=call_id)
        try:
            files, _notes = self._states(paths, keep=False)
        except (OSError, UnsafePathError) as exc:
            return record.model_copy(update={"error": _why(exc)})
        return record.model_copy(update={"files": files})

    def snapshot(self, call_id: str, tool: str) -> CheckpointRecord:
        record = CheckpointRecord(
            ts=time.time(), call_id=call_id, tool=tool, method="snapshot", store=self.store
        )
        try:
            with self.folder.locked():
                recover_locked(self.folder)
                taken = self.shadow.snapshot()
        except (OSError, ShadowError) as exc:
            return record.model_copy(update={"error": _why(exc)})
        update = {"tree": taken.tree, "notice": taken.notice or None, "modes": taken.modes}
        return record.model_copy(update=update)

    def snapshot_after(self, call_id: str) -> CheckpointDoneRecord:
        record = CheckpointDoneRecord(ts=time.time(), call_id=call_id)
        try:
            with self.folder.locked():
                taken = self.shadow.snapshot()
        except (OSError, ShadowError) as exc:
            return record.model_copy(update={"error": _why(exc)})
        return record.model_copy(update={"tree": taken.tree, "modes": taken.modes})

    def capture_now(self, paths: list[str]) -> list[CapturedFile]:
        """Each path's state now, content kept (what a rewind is about to replace)."""
        with self.folder.locked():  # a prune never removes content while it is being kept
            return self._states(paths, keep=True)[0]
