"""The automatic prune: at most once a day, when the app or `run` starts, in a thread of its own.

``start_daily_prune(keep_days)`` returns at once. Its thread looks at the stamp
``<checkpoints>/last-prune``: written less than a day ago, nothing happens; else the stamp is
written first (a prune that fails or is cut short by the process ending waits for the next day
too) and a prune runs. Of several processes starting together, one prunes (the stamp's lock).
Nothing here raises: what failed, and what a prune removed, goes to the log.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from .folder import checkpoints_root
from .prune import PruneReport, prune

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

STAMP = "last-prune"
DAY_S = 86_400.0
THREAD_NAME = "checkpoint-prune"

log = logging.getLogger(__name__)


def claim(root: Path, now: float) -> bool:
    """Whether a prune is due (never, when no checkpoint was ever kept); if it is, the stamp is
    set to ``now`` before this returns True. Raises OSError."""
    if not root.is_dir():
        return False
    fd = os.open(root / STAMP, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # another process is deciding right now
        info = os.fstat(fd)
        # An empty stamp was never written (just made); one from the future is a clock's jump.
        if info.st_size and 0 <= now - info.st_mtime < DAY_S:
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{now:.0f}\n".encode())
        os.utime(fd, (now, now))
        return True
    finally:
        os.close(fd)


def prune_if_due(
    keep_days: int,
    *,
    root: Path | None = None,
    sessions: Path | None = None,
    now: float | None = None,
) -> PruneReport | None:
    """The day's prune, when it is due (None when it was not)."""
    root = root if root is not None else checkpoints_root()
    now = time.time() if now is None else now
    if not claim(root, now):
        return None
    report = prune(keep_days, root=root, sessions=sessions, now=now)
    for notice in report.notices:
        log.warning("checkpoint prune: %s", notice)
    for store in report.stores:
        where = store.workspace or store.name
        if store.action in ("pruned", "removed"):
            log.info(
                "checkpoint prune: %s %s: %d blob(s), %d object(s), %d bytes freed",
                where, store.action, store.blobs, store.objects, store.bytes_freed,
            )  # fmt: skip
        if store.action == "skipped":
            log.info("checkpoint prune: %s skipped: %s", where, store.why)
        elif store.why and store.action != "removed":  # blocked, or a step that failed
            log.warning("checkpoint prune: %s %s: %s", where, store.action, store.why)
    return report


def _run(keep_days: int, root: Path | None, sessions: Path | None) -> None:
    try:
        prune_if_due(keep_days, root=root, sessions=sessions)
    except Exception:
        log.exception("the daily prune of checkpoints failed")


def start_daily_prune(
    keep_days: int, *, root: Path | None = None, sessions: Path | None = None
) -> threading.Thread:
    """Start the day's prune in a daemon thread (see the module); returns the thread."""
    thread = threading.Thread(
        target=_run, args=(keep_days, root, sessions), name=THREAD_NAME, daemon=True
    )
    thread.start()
    return thread
