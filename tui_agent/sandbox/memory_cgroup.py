"""A total memory limit the kernel enforces for a confined command: a memory cgroup per call.

``RLIMIT_AS`` bounds each process's address space, not their sum: forty processes of 200 MB each
pass it. So, where the app may make one, each confined command gets a memory cgroup of its own
whose limit counts every process of the command together (and the pages it writes to its private
tmpfs folders): past it the kernel's OOM killer ends a process of the group, the sandbox's init
then stops the rest, and the result says "stopped: it used more than N MiB in total".

Where: cgroup v1's memory hierarchy (``memory.limit_in_bytes``, and ``memory.memsw.limit_in_bytes``
so swap does not stretch it), or cgroup v2 where the memory controller is already enabled for the
children of the app's own cgroup (``memory.max``, ``memory.swap.max`` 0, ``memory.oom.group``).
Nothing here enables a controller. On cgroup v2 a process is in one cgroup only, so when the pids
group lives in the same hierarchy the limit is set on that group instead of a second one.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .pids_cgroup import PREFIX, cgroup_mounts, own_cgroups, remove_group, sweep_dead

_counter = itertools.count(1)
_left: list[Path] = []
_swept: set[Path] = set()


@dataclass(frozen=True)
class MemoryParent:
    path: Path
    v2: bool


@dataclass(frozen=True)
class MemoryGroup:
    """``procs``: the cgroup.procs to join ("" when the pids group already is this group, or
    when none could be made); ``events``: the file whose ``oom_kill`` counts the kills."""

    procs: str
    events: str


NO_GROUP = MemoryGroup("", "")


@functools.cache
def memory_parent() -> MemoryParent | None:
    """The folder to make a command's memory group in, or None when this process cannot."""
    own = own_cgroups()
    for point, kind, options in cgroup_mounts():
        if kind == "cgroup" and "memory" in options and "memory" in own:
            parent, v2 = Path(point + own["memory"]), False
        elif kind == "cgroup2" and "" in own:
            parent, v2 = Path(point + own[""]), True
            try:
                enabled = (parent / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if "memory" not in enabled:
                continue
        else:
            continue
        if (parent / "cgroup.procs").exists() and os.access(parent, os.W_OK):
            return MemoryParent(parent, v2)
    return None


def _limit(group: Path, size: int, v2: bool) -> None:
    if v2:
        (group / "memory.max").write_text(str(size))
        with contextlib.suppress(OSError):
            (group / "memory.swap.max").write_text("0")
        with contextlib.suppress(OSError):
            (group / "memory.oom.group").write_text("1")
        return
    (group / "memory.limit_in_bytes").write_text(str(size))
    with contextlib.suppress(OSError):  # absent when the kernel does not account swap
        (group / "memory.memsw.limit_in_bytes").write_text(str(size))


@contextlib.contextmanager
def memory_group(
    limit_mb: int, parent: MemoryParent | None, pids_procs: str = ""
) -> Iterator[MemoryGroup]:
    """A group allowing ``limit_mb`` MiB in total under ``parent`` (NO_GROUP when none)."""
    if parent is None:
        yield NO_GROUP
        return
    size = limit_mb * 1024 * 1024
    events = "memory.events" if parent.v2 else "memory.oom_control"
    shared = Path(pids_procs).parent if pids_procs else None
    if parent.v2 and shared is not None and shared.parent == parent.path:
        try:
            _limit(shared, size, True)
        except OSError:
            yield NO_GROUP
            return
        yield MemoryGroup("", str(shared / events))
        return
    _left[:] = [group for group in _left if not remove_group(group)]
    if parent.path not in _swept:
        _swept.add(parent.path)
        sweep_dead(parent.path)
    group = parent.path / f"{PREFIX}{os.getpid()}-m{next(_counter)}"
    try:
        group.mkdir(mode=0o700)
    except OSError:
        yield NO_GROUP
        return
    try:
        _limit(group, size, parent.v2)
    except OSError:
        remove_group(group)
        yield NO_GROUP
        return
    try:
        yield MemoryGroup(str(group / "cgroup.procs"), str(group / events))
    finally:
        if not remove_group(group):
            _left.append(group)


def counter(path: str, name: str) -> int:
    """The value of ``name`` in a cgroup's flat-keyed file (``max 3``, ``oom_kill 1``); 0 when
    it cannot be read."""
    if not path:
        return 0
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(" ")
                if key == name and value.strip().isdigit():
                    return int(value)
    except OSError:
        return 0
    return 0
