"""The checkpoint folders on disk: which there are, their size, what they hold and which saved
sessions refer to them (``tui-agent checkpoints``)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .folder import CheckpointFolder
from .references import Referrers, read_referrers
from .shadow import ShadowError, ShadowRepo
from .shadow_gc import ShadowGc

STORE = re.compile(r"ws-[0-9a-f]{24}")
_BLOB_NAME = re.compile(r"[0-9a-f]{62}")


def store_paths(root: Path) -> list[Path]:
    """Every workspace's checkpoint folder under ``root`` (never through a symlink)."""
    try:
        with os.scandir(root) as entries:
            found = [
                Path(e.path)
                for e in entries
                if STORE.fullmatch(e.name) and e.is_dir(follow_symlinks=False)
            ]
    except FileNotFoundError:
        return []
    return sorted(found)


def _walk(path: Path) -> Iterator[os.stat_result]:
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            try:
                yield os.lstat(os.path.join(folder, name))
            except OSError:
                continue


def disk_usage(path: Path) -> int:
    """The bytes ``path`` takes on disk (as ``du`` counts them)."""
    try:
        own = os.lstat(path).st_blocks
    except OSError:
        return 0
    return 512 * (own + sum(info.st_blocks for info in _walk(path)))


def newest_change(path: Path) -> float:
    """The latest modification time of anything in ``path``."""
    return max((info.st_mtime for info in _walk(path)), default=0.0)


def blob_files(folder: CheckpointFolder) -> Iterator[tuple[str, Path, os.stat_result]]:
    """Each file of the blob store: its sha256 ('' for a temporary file a crash left)."""
    root = folder.blobs.root
    try:
        with os.scandir(root) as entries:  # never through a symlink
            prefixes = sorted(
                e.name for e in entries if len(e.name) == 2 and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return
    for prefix in prefixes:
        try:
            names = sorted(os.listdir(root / prefix))
        except OSError:
            continue
        for name in names:
            path = root / prefix / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            sha = prefix + name if _BLOB_NAME.fullmatch(name) else ""
            yield sha, path, info


@dataclass
class StoreInfo:
    """One workspace's checkpoint folder, as listed."""

    name: str
    workspace: str  # '' when its label is missing
    path: Path
    size: int  # bytes on disk
    blobs: int  # file contents kept
    snapshots: int  # snapshots the sessions name that the shadow repository holds
    sessions: int  # saved sessions that refer to it
    kept: int  # of them, those that keep it (changed within keep_days, or open)
    blocked: list[str] = field(default_factory=list)  # why a prune would leave it alone


def inventory(root: Path, sessions: Path, keep_days: int, now: float) -> list[StoreInfo]:
    """Every checkpoint folder under ``root``, and the sessions in ``sessions`` that use it."""
    referrers = read_referrers(sessions, keep_days, now)
    return [describe(path, referrers) for path in store_paths(root)]


def describe(path: Path, referrers: Referrers) -> StoreInfo:
    folder = CheckpointFolder.existing(path)
    users = referrers.of(folder.name)
    trees = set().union(*(s.trees for s in users)) if users else set()
    snapshots = 0
    gc = ShadowGc(ShadowRepo(folder))
    if trees and gc.exists():
        try:
            snapshots = sum(1 for kind in gc.present(trees).values() if kind == "tree")
        except (OSError, ShadowError):
            snapshots = 0
    return StoreInfo(
        name=folder.name,
        workspace=str(folder.workspace) if folder.labelled else "",
        path=path,
        size=disk_usage(path),
        blobs=sum(1 for sha, _path, _info in blob_files(folder) if sha),
        snapshots=snapshots,
        sessions=len(users),
        kept=sum(1 for s in users if s.kept),
        blocked=referrers.blocking(folder.name),
    )
