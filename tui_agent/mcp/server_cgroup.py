"""As root, each stdio server's lifeline and all it starts also share a cgroup of their own, so
that what the lifeline cannot reach is still found: when the lifeline itself was killed (the OOM
killer, a ``kill -9`` of it), the app ends whatever is left in the group when it stops the
server, and the next app sweeps the groups of apps that are gone.

The groups are made where the command sandbox makes its pids groups (sandbox/pids_cgroup.py:
cgroup v1's pids hierarchy, or v2 with the pids controller on), named
``tui-agent-mcp-<app pid>-<n>``; a group is removed once it is empty.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
from pathlib import Path

from ..sandbox.pids_cgroup import pids_parent

PREFIX = "tui-agent-mcp-"
KILL_ROUNDS = 200
_counter = itertools.count(1)
_left: list[Path] = []  # this app's groups that were not empty yet when their server ended
_swept = False


def members(group: Path) -> list[int]:
    try:
        text = (group / "cgroup.procs").read_text()
    except OSError:
        return []
    return [int(pid) for pid in text.split() if pid.isdigit()]


def empty(group: Path) -> bool:
    """SIGKILL every process in ``group``, round after round, then remove it; whether it is gone."""
    for _ in range(KILL_ROUNDS):
        pids = members(group)
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    try:
        group.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False  # its last processes are not reaped yet
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep(parent: Path) -> None:
    """Empty this app's groups left busy, and (once per app) every group of an app that is
    gone."""
    global _swept
    _left[:] = [group for group in _left if not empty(group)]
    if _swept:
        return
    _swept = True
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            pid = entry.name.removeprefix(PREFIX).split("-", 1)[0]
            if entry.name.startswith(PREFIX) and pid.isdigit() and not _alive(int(pid)):
                empty(entry)


def new_group() -> Path | None:
    """A new empty group for one server, or None where none can be made (not root, no pids
    controller, a read-only cgroup file system)."""
    parent = pids_parent()
    if parent is None:
        return None
    sweep(parent)
    group = parent / f"{PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        group.mkdir(mode=0o700)
    except OSError:
        return None
    return group


def end_group(group: Path) -> None:
    """Kill what is left in ``group`` and remove it (later, if its processes are not reaped)."""
    if not empty(group):
        _left.append(group)
