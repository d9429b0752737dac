"""Pruning: removing checkpoint data no kept session refers to.

A blob or a snapshot may go only when no saved session that is kept (changed within
``keep_days``, or open now: ``references.py``) refers to it; a deleted session keeps nothing.
Each workspace's folder is pruned under its lock, taken without waiting:

- skipped (left as it is): a rewind journal is there, or the lock is held (a snapshot or a
  rewind is running);
- blocked (nothing removed): a session that may refer to it cannot be read whole;
- removed entirely: no kept session refers to it and nothing in it is newer than the cutoff;
- else its unkept blobs, and its unkept shadow objects (``shadow_gc.py``), are removed.

Whatever was written or kept again in the last ``grace`` seconds (an hour) stays, whatever
refers to it: a capture's record reaches its session only just after the capture. A dry run
removes nothing and says what would go (the shadow repository's bytes are then an estimate).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..session.paths import sessions_dir
from .folder import CheckpointFolder, StoreBusyError, checkpoints_root
from .inventory import blob_files, disk_usage, newest_change, store_paths
from .references import Referrers, SessionRefs, read_referrers
from .shadow import ShadowError, ShadowRepo
from .shadow_gc import ShadowGc

DEFAULT_KEEP_DAYS = 30
GRACE_S = 3600.0
_REMOVING = ".removing-"

Action = Literal["pruned", "removed", "unchanged", "skipped", "blocked"]


@dataclass
class StoreResult:
    name: str
    workspace: str  # '' when unknown
    action: Action
    why: str = ""
    blobs: int = 0  # blob files removed (or that would be)
    objects: int = 0  # shadow repository objects removed (or that would be)
    bytes_freed: int = 0


@dataclass
class PruneReport:
    dry_run: bool
    keep_days: int
    stores: list[StoreResult] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def bytes_freed(self) -> int:
        return sum(s.bytes_freed for s in self.stores)


def prune(
    keep_days: int,
    *,
    root: Path | None = None,
    sessions: Path | None = None,
    dry_run: bool = False,
    now: float | None = None,
    grace: float = GRACE_S,
) -> PruneReport:
    """Prune every workspace's checkpoint folder under ``root`` (default: the data folder's),
    against the sessions in ``sessions`` (default: the saved sessions)."""
    root = root if root is not None else checkpoints_root()
    now = time.time() if now is None else now
    cutoff = now - grace
    report = PruneReport(dry_run, keep_days)
    if not dry_run:
        _finish_removals(root)
    referrers = read_referrers(sessions if sessions is not None else sessions_dir(), keep_days, now)
    if referrers.problem:
        report.notices.append(f"nothing is pruned: {referrers.problem}")
    for path in store_paths(root):
        result = _prune_store(CheckpointFolder.existing(path), referrers, cutoff, dry_run)
        report.stores.append(result)
    return report


def _finish_removals(root: Path) -> None:
    """Folders an interrupted prune had set aside for removal."""
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        for entry in list(entries):
            if entry.name.startswith(_REMOVING) and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)


def _prune_store(
    folder: CheckpointFolder, referrers: Referrers, cutoff: float, dry_run: bool
) -> StoreResult:
    result = StoreResult(folder.name, str(folder.workspace) if folder.labelled else "", "unchanged")
    blocking = referrers.blocking(folder.name)
    if blocking:
        result.action, result.why = "blocked", "; ".join(blocking)
        return result
    if folder.journal.exists():
        return _journal(result)
    try:
        with folder.locked(wait=False):
            if folder.journal.exists():
                return _journal(result)
            _prune_locked(folder, referrers, cutoff, dry_run, result)
    except StoreBusyError:
        result.action, result.why = "skipped", "in use (a checkpoint or a rewind is running)"
    except OSError as exc:
        result.why = f"stopped: {exc.strerror or exc}"
        if result.blobs or result.objects:
            result.action = "pruned"
    return result


def _journal(result: StoreResult) -> StoreResult:
    result.action = "skipped"
    result.why = "a rewind is running or was interrupted (its next rewind or checkpoint ends it)"
    return result


def _prune_locked(
    folder: CheckpointFolder,
    referrers: Referrers,
    cutoff: float,
    dry_run: bool,
    result: StoreResult,
) -> None:
    keepers = [s for s in referrers.of(folder.name) if s.kept]
    if not keepers and newest_change(folder.path) < cutoff:
        result.action, result.why = "removed", "no kept session refers to it"
        result.bytes_freed = disk_usage(folder.path)
        result.blobs = sum(1 for sha, _p, _i in blob_files(folder) if sha)
        if not dry_run:
            aside = folder.path.parent / f"{_REMOVING}{folder.name}-{secrets.token_hex(4)}"
            os.rename(folder.path, aside)  # at once: the folder is whole or gone
            shutil.rmtree(aside, ignore_errors=True)
        return
    blobs = set().union(*(s.blobs for s in keepers)) if keepers else set()
    for sha, path, info in blob_files(folder):
        if sha in blobs or info.st_mtime >= cutoff:
            continue
        if not dry_run:
            try:
                path.unlink()
            except FileNotFoundError:
                continue
        result.blobs += bool(sha)  # a crash's temporary file frees bytes, counts no blob
        result.bytes_freed += 512 * info.st_blocks
    if not dry_run:
        _drop_empty_folders(folder.blobs.root)
    try:
        _prune_shadow(folder, keepers, cutoff, dry_run, result)
    except ShadowError as exc:
        result.why = f"the shadow repository was left as it is: {exc}"
    if result.blobs or result.objects or result.bytes_freed:
        result.action = "pruned"


def _prune_shadow(
    folder: CheckpointFolder,
    keepers: list[SessionRefs],
    cutoff: float,
    dry_run: bool,
    result: StoreResult,
) -> None:
    gc = ShadowGc(ShadowRepo(folder))
    if not gc.exists():
        return
    keep: set[str] = set()
    for session in keepers:
        keep |= session.trees | session.objects
    count, estimate = gc.unneeded(keep, cutoff)
    if not count:
        return
    result.objects = count
    if dry_run:
        result.bytes_freed += estimate
        return
    before = disk_usage(folder.shadow)
    gc.collect(keep, cutoff)
    result.bytes_freed += max(0, before - disk_usage(folder.shadow))


def _drop_empty_folders(root: Path) -> None:
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        for entry in list(entries):
            if entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)  # only when empty
