"""Confine a command between fork and exec: the ``preexec_fn`` of its process.

Three processes, none of them a new interpreter (starting Python again would cost ~30 ms):

- the *launcher* (the child the app spawned, leader of the call's process group) creates the
  namespaces, forks, and waits; it dies with the app (``PR_SET_PDEATHSIG``), and mirrors how
  the command ended (exit code or signal);
- the *init* (PID 1 of the new PID namespace, also dying with the launcher) mounts a /proc
  that shows only the command's processes, brings up its own loopback, applies Landlock, forks
  the command and reaps; SIGTERM/SIGINT/SIGHUP it passes to every process of the namespace.
  When the command ends the init ends, and the kernel kills everything left in the namespace:
  ``setsid`` children and daemons included. When the app dies by any means (kill -9 too) the
  launcher dies, then the init, then the rest;
- the *command* gets the resource limits and the signal mask back, and is exec'd.

Every failure before ``exec`` is written to the command's output and ends the call with
``SETUP_FAILED``: a command that cannot be confined never runs unconfined.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from .git_guard import bind_read_only
from .host_view import HostView
from .host_view import apply as apply_host_view
from .landlock import SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL, Ruleset
from .limits import apply_limits
from .namespaces import (
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    CLONE_NEWUSER,
    die_with_parent,
    loopback_up,
    mount_private_proc,
    mounts_private,
    neutral_name,
    not_dumpable,
    raw_fork,
    unshare,
)
from .pids_cgroup import join
from .rules import Rule
from .seccomp import install as install_network_filter
from .write_quota import exceeded as write_quota_exceeded
from .write_quota import start as write_quota_start

SETUP_FAILED = 125
SETUP_MESSAGE = "tui-agent sandbox: "
_PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_WAITED = {signal.SIGCHLD, *_PASSED_ON}
_libc = ctypes.CDLL(None, use_errno=True)
_libc.signal.restype = ctypes.c_void_p
_libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]


@dataclass(frozen=True)
class Plan:
    """Everything the child needs, computed in the app before the fork."""

    app_pid: int
    namespaces: bool  # user, PID and mount namespaces (the init and its private /proc)
    fresh_proc: bool
    new_network: bool  # a network namespace of its own (network off)
    landlock_abi: int  # 0: no Landlock
    deny_tcp: bool  # network off without a network namespace: Landlock refuses TCP
    rules: tuple[Rule, ...]
    max_processes: int | None  # None: RLIMIT_NPROC is not set (it would count all our processes)
    memory_mb: int
    uid: int
    gid: int
    report_fd: int = -1  # the init writes b"L" here when it stopped processes left running
    pids_procs: str = ""  # cgroup.procs of the command's pids group (root: see pids_cgroup)
    network_filter: bytes = b""  # network off without a namespace: seccomp refuses inet sockets
    view: HostView | None = None  # host sockets hidden in the mount namespace
    scratch_mb: int = 1024  # size of each tmpfs covering a host folder (see host_view)
    read_only: tuple[str, ...] = ()  # bind-mounted read-only in the namespace (git_guard.py)
    memory_procs: str = ""  # cgroup.procs of the command's memory group (see memory_cgroup)
    memory_events: str = ""  # the file whose oom_kill counts the group's OOM kills
    write_mb: int = 0  # the workspace's file system may lose at most this much (0: no watch)


def preexec(plan: Plan) -> Callable[[], None]:
    """The function ``subprocess`` runs in the child before ``exec``."""

    def setup() -> None:
        launch_or_fail(plan)

    return setup


def launch_or_fail(plan: Plan) -> None:
    """Confine this fresh process (a fork of the app, or of the fork server): returns in the
    command, about to exec; every failure before it ends the process with ``SETUP_FAILED``."""
    try:
        _launch(plan)
    except OSError as exc:
        fail(str(exc))


def fail(message: str) -> None:
    text = f"{SETUP_MESSAGE}{message}; the command did not run\n"
    try:
        os.write(2, text.encode("utf-8", "replace"))
    finally:
        os._exit(SETUP_FAILED)


def _launch(plan: Plan) -> None:
    # No Python signal handler of the app may run here (its SIGTERM handler kills tool groups):
    # default dispositions, and the signals blocked until the command is about to exec.
    for signum in _PASSED_ON:
        _libc.signal(signum, None)
    original_mask = signal.pthread_sigmask(signal.SIG_BLOCK, _WAITED)
    die_with_parent()
    not_dumpable()
    if os.getppid() != plan.app_pid:
        os._exit(SETUP_FAILED)  # the app is already gone
    if plan.pids_procs:
        try:
            join(plan.pids_procs)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot join the process limit's cgroup ({exc})") from None
    if plan.memory_procs:
        try:
            join(plan.memory_procs)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot join the memory limit's cgroup ({exc})") from None
    watched = _watched_files(plan)
    if not plan.namespaces:
        _confine(plan)
        _become_command(plan, original_mask)
        return
    # IPC too: the host's System V shared memory, semaphores and message queues (and POSIX
    # message queues) are another channel to a host service.
    flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC
    if plan.new_network:
        flags |= CLONE_NEWNET
    unshare(flags, plan.uid, plan.gid)
    neutral_name()
    status_read, status_write = os.pipe()
    init = raw_fork()
    if init > 0:
        _closefds_except({status_read})
        _launcher(init, status_read)
    os.close(status_read)
    die_with_parent()
    mounts_private()
    if plan.fresh_proc:
        mount_private_proc()
    if plan.view is not None:
        apply_host_view(plan.view, plan.scratch_mb)
    bind_read_only(plan.read_only)
    if plan.new_network:
        loopback_up()
    _confine(plan)
    command = raw_fork()
    if command == 0:
        os.close(status_write)
        _become_command(plan, original_mask)
        return
    _closefds_except({status_write, plan.report_fd, *watched})
    _init(command, status_write, plan, watched, write_quota_start())


def _confine(plan: Plan) -> None:
    if plan.landlock_abi:
        _landlock(plan)
    if plan.network_filter:
        install_network_filter(plan.network_filter)


def _landlock(plan: Plan) -> None:
    # No signal to a process outside the sandbox (the app above all), and no abstract Unix
    # socket outside it (a host service's, even with the network on: it is not a network).
    scopes = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET
    ruleset = Ruleset(plan.landlock_abi, deny_tcp=plan.deny_tcp, scopes=scopes)
    for rule in plan.rules:
        ruleset.allow(rule.path, rule.rights, is_dir=rule.is_dir)
    ruleset.restrict_self()


def _become_command(plan: Plan, original_mask: set[int | signal.Signals]) -> None:
    apply_limits(plan.max_processes, plan.memory_mb, plan.write_mb)
    signal.pthread_sigmask(signal.SIG_SETMASK, original_mask)


def _closefds_except(keep: set[int]) -> None:
    """The launcher and the init never exec: they must not hold the app's pipes open (the
    app learns that exec succeeded when its error pipe closes)."""
    low = 3
    for fd in sorted(fd for fd in keep if fd >= low):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 20)


def _launcher(init: int, status_read: int) -> None:
    """Wait for the init; end the way the command ended. Never returns."""
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except ChildProcessError:
            os._exit(SETUP_FAILED)
    reported = b""
    with contextlib.suppress(OSError):
        reported = os.read(status_read, 4)
    if len(reported) == 4:
        status = struct.unpack("i", reported)[0]
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        _libc.signal(signum, None)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else SETUP_FAILED)


def _watched_files(plan: Plan) -> tuple[int, int]:
    """The pids group's pids.events and the memory group's events, opened before the command
    could change anything (-1 for none). Close-on-exec: the command never holds them."""
    pids_events = os.path.dirname(plan.pids_procs) + "/pids.events" if plan.pids_procs else ""
    files = []
    for path in (pids_events, plan.memory_events):
        try:
            files.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC) if path else -1)
        except OSError:
            files.append(-1)
    return files[0], files[1]


# Forks the pids cgroup refused before the command counts as a fork bomb and is stopped (a
# shell retries a refused fork a few times; a bomb is refused thousands of times a second).
FORK_REFUSALS = 50


def _counter(fd: int, name: bytes) -> int:
    if fd < 0:
        return 0
    try:
        text = os.pread(fd, 512, 0)
    except OSError:
        return 0
    for line in text.splitlines():
        key, _, value = line.partition(b" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


def _watch(plan: Plan, watched: tuple[int, int], free_at_start: int) -> None:
    """Stop the command at a limit it keeps hitting: forks refused by the pids cgroup, a kill
    by the memory cgroup's OOM killer (the app's result says which, from the same counters), or
    past ``max_processes`` in the private /proc where no cgroup counts. May not return."""
    if _counter(watched[0], b"max") >= FORK_REFUSALS or _counter(watched[1], b"oom_kill"):
        os.kill(-1, signal.SIGKILL)
        os._exit(128 + signal.SIGKILL)
    if plan.fresh_proc and plan.max_processes and _too_many(plan.max_processes):
        _stop_all(f"it ran more than {plan.max_processes} processes at once")
    if plan.write_mb and write_quota_exceeded(free_at_start, plan.write_mb):
        if plan.report_fd >= 0:
            os.write(plan.report_fd, b"W")
        os.kill(-1, signal.SIGKILL)
        os._exit(128 + signal.SIGKILL)


def _init(
    command: int, status_write: int, plan: Plan, watched: tuple[int, int], free_at_start: int
) -> None:
    """PID 1 of the namespace: reap, pass on stop signals, end with the command, and stop a
    command at its limits (see ``_watch``); every ``_WATCH_S`` even while children keep ending
    (each end is a SIGCHLD). Never returns."""
    checked = time.monotonic()
    while True:
        info = signal.sigtimedwait(_WAITED, _WATCH_S)
        now = time.monotonic()
        if now - checked >= _WATCH_S:
            checked = now
            _watch(plan, watched, free_at_start)
        if info is None:
            continue
        if info.si_signo != signal.SIGCHLD:
            with contextlib.suppress(OSError):
                os.kill(-1, info.si_signo)  # every process of the namespace but this one
            continue
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                os._exit(SETUP_FAILED)
            if pid == 0:
                break
            if pid == command:
                if plan.fresh_proc and plan.report_fd >= 0 and _others_left():
                    os.write(plan.report_fd, b"L")
                os.write(status_write, struct.pack("i", status))
                os._exit(0)  # the kernel kills whatever is left in the namespace


_WATCH_S = 0.02


def _others_left() -> bool:
    try:
        return any(entry.isdigit() and entry != "1" for entry in os.listdir("/proc"))
    except OSError:
        return False


def _too_many(limit: int) -> bool:
    """More than ``limit`` processes of the command: the init (PID 1) is not one of them, as
    the pids cgroup gives the command ``limit`` of its own beside the launcher and the init."""
    try:
        return sum(1 for entry in os.listdir("/proc") if entry.isdigit() and entry != "1") > limit
    except OSError:
        return False


def _stop_all(why: str) -> None:
    try:
        os.write(2, f"\n{SETUP_MESSAGE}stopped the command: {why}\n".encode())
    finally:
        os.kill(-1, signal.SIGKILL)
        os._exit(128 + signal.SIGKILL)
