"""A process limit the kernel enforces for a confined command that root runs: a pids cgroup.

``RLIMIT_NPROC`` does not bind root (the kernel exempts the first user namespace's root, and a
command's own user namespace maps to it), so as root each confined command gets a cgroup of its
own whose ``pids.max`` counts the launcher, the init and every process and thread of the command:
a fork past it fails at once with EAGAIN ("Resource temporarily unavailable"), however fast the
command forks. The init's count of its private /proc stays as the backstop where no cgroup can
be made (no pids controller, a read-only /sys/fs/cgroup in a container).

Where: the pids hierarchy of cgroup v1, or cgroup v2 when the pids controller is already enabled
for the children of the app's own cgroup (nothing here enables a controller). The group is made
beside the app's own (``tui-agent-<app pid>-<n>``) and removed when the call ends; one that is not
empty yet is removed by a later call, and those an app left behind when it was killed are removed
by the next app that makes one.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
from collections.abc import Iterator
from pathlib import Path

PREFIX = "tui-agent-"
_counter = itertools.count(1)
_left: list[Path] = []  # groups that were not empty yet when their call ended
_swept = False


def cgroup_mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, type, options) of each cgroup file system."""
    found = []
    try:
        with open("/proc/self/mounts", encoding="utf-8") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                    point = fields[1].replace("\\040", " ")
                    found.append((point, fields[2], set(fields[3].split(","))))
    except OSError:
        return []
    return found


def own_cgroups() -> dict[str, str]:
    """The app's own cgroup per hierarchy: "pids" (v1) and "" (v2) -> its path."""
    paths: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            for line in handle:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for name in controllers.split(",") if controllers else [""]:
                    paths[name] = path
    except (OSError, ValueError):
        return {}
    return paths


@functools.cache
def pids_parent() -> Path | None:
    """The folder to make a command's pids group in, or None when this process cannot (found
    once per process: the mounts and the app's own cgroup do not change under it)."""
    if os.geteuid() != 0:
        return None  # RLIMIT_NPROC binds: no group needed
    own = own_cgroups()
    for point, kind, options in cgroup_mounts():
        if kind == "cgroup" and "pids" in options and "pids" in own:
            parent = Path(point + own["pids"])
        elif kind == "cgroup2" and "" in own:
            parent = Path(point + own[""])
            try:
                enabled = (parent / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if "pids" not in enabled:
                continue
        else:
            continue
        if (parent / "cgroup.procs").exists() and os.access(parent, os.W_OK):
            return parent
    return None


def remove_group(group: Path) -> bool:
    try:
        group.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _sweep(parent: Path) -> None:
    """Remove what earlier calls left: this app's groups that were still busy, and the groups of
    apps that are gone (a group is only ever removed when no process is left in it)."""
    global _swept
    _left[:] = [group for group in _left if not remove_group(group)]
    if _swept:
        return
    _swept = True
    sweep_dead(parent)


def sweep_dead(parent: Path) -> None:
    """Remove the groups under ``parent`` of apps that are gone."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            pid = entry.name.removeprefix(PREFIX).split("-", 1)[0]
            if entry.name.startswith(PREFIX) and pid.isdigit() and not _alive(int(pid)):
                remove_group(entry)


@contextlib.contextmanager
def pids_group(limit: int, parent: Path | None) -> Iterator[str]:
    """A group allowing ``limit`` tasks under ``parent``; yields the path of its cgroup.procs
    (for the launcher to join before it forks), or "" when none could be made."""
    if parent is None:
        yield ""
        return
    _sweep(parent)
    group = parent / f"{PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        group.mkdir(mode=0o700)
    except OSError:
        yield ""
        return
    try:
        (group / "pids.max").write_text(str(limit))
    except OSError:
        remove_group(group)
        yield ""
        return
    try:
        yield str(group / "cgroup.procs")
    finally:
        if not remove_group(group):
            _left.append(group)  # its last processes are still being reaped


def join(procs: str) -> None:
    """In the launcher, before it forks: move this process (and so all it starts) into the
    group; raises OSError.

    On cgroup v1 it writes its own thread to the group's ``tasks`` rather than its process to
    ``cgroup.procs``: the launcher is a fresh fork, so its one thread is the whole process, and
    the kernel moves one thread without taking the lock that stops every fork of the machine
    (writing ``cgroup.procs`` waits a whole RCU grace period for it: ~10 ms a call)."""
    try:
        fd = os.open(os.path.join(os.path.dirname(procs), "tasks"), os.O_WRONLY | os.O_CLOEXEC)
    except FileNotFoundError:  # cgroup v2: no tasks file
        fd = os.open(procs, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, b"0")
    finally:
        os.close(fd)
