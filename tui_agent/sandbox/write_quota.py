"""What one call may write: ``sandbox_write_mb`` (see docs/sandbox-and-approval.md).

No kernel offers a per-process quota on an ordinary folder, so three bounds together:

- the private temporary folder (``$TMPDIR``) is a tmpfs of its own of that size (with
  namespaces): past it a write fails with ENOSPC, as on a full disk;
- no single file may grow past it (``RLIMIT_FSIZE``: SIGXFSZ, then EFBIG), in the workspace too;
- the workspace's file system is watched: the sandbox's init reads its free space when the
  command starts and every 20 ms after, and stops the command once that file system has lost
  more than the quota ("stopped: it wrote more than N MiB in the workspace").

The watch is honest about what it sees: space, not bytes. It may overshoot by what a command
writes in 20 ms; a command that deletes as it writes is not counted; and other programs writing
to the same file system at the same time count against the call (on a busy shared disk, raise the
setting). Without namespaces (no init) only ``RLIMIT_FSIZE`` holds.
"""

from __future__ import annotations

import os


def _free() -> int:
    """Free bytes of the file system of the current folder (the workspace: the init runs
    there); -1 when it cannot tell."""
    try:
        info = os.statvfs(".")
    except OSError:
        return -1
    return info.f_bfree * info.f_frsize


def start() -> int:
    return _free()


def exceeded(free_at_start: int, quota_mb: int) -> bool:
    if free_at_start < 0:
        return False
    now = _free()
    return now >= 0 and free_at_start - now > quota_mb * 1024 * 1024
