"""The process between the app and a stdio server: every descendant of the server dies with it,
and all of them die with the app, also when the app is killed with SIGKILL.

    python -I -S lifeline.py APP_PID [--group CGROUP] COMMAND ARGS...

Run as a script (standard library only, no import of the package, nothing from the
environment): it marks itself a child subreaper (``PR_SET_CHILD_SUBREAPER``), so whatever the
server starts stays below it, also a ``setsid`` daemon whose parent exited; and it asks for
SIGUSR1 when its parent, the app, dies (``PR_SET_PDEATHSIG``). It starts the server in a process
group of its own and gives it its stdin and stdout; it keeps neither.

- The server exits: everything left below the lifeline is SIGKILLed; it exits with the server's
  status.
- SIGTERM (the SDK's stop, sent to the lifeline's group only): the server's group gets SIGTERM,
  and whatever is left after ``TERM_GRACE_S`` is SIGKILLed (a server that ignores EOF and
  SIGTERM included).
- SIGUSR1 (the app died, or is exiting): everything below is SIGKILLed at once.

With ``--group`` (as root: mcp/server_cgroup.py) it first joins that cgroup, so all it starts is
in it too, and what it kills is also every other process of the group.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
TERM_GRACE_S = 1.5  # below the SDK's 2 s between SIGTERM and SIGKILL
KILL_ROUNDS = 200
_WATCHED = {signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1}


def _members(group: str | None) -> list[int]:
    if group is None:
        return []
    try:
        with open(os.path.join(group, "cgroup.procs"), encoding="ascii") as handle:
            found = [int(pid) for pid in handle.read().split() if pid.isdigit()]
    except (OSError, ValueError):
        return []
    return [pid for pid in found if pid != os.getpid()]


def _descendants(root: int) -> list[int]:
    """Every living process below ``root`` (zombies left out: they are only reaped)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _reap(server: int) -> int | None:
    """Reap every exited child; the server's wait status if it was among them."""
    status = None
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == server:
            status = code


def _kill_all(server: int, group: str | None) -> int | None:
    """SIGKILL everything below (and in the group), round after round, until nothing is left (a
    process forking meanwhile is caught by the next round)."""
    status = None
    for _ in range(KILL_ROUNDS):
        pids = sorted({*_descendants(os.getpid()), *_members(group)})
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        status = _reap(server) if status is None else status
        time.sleep(0.005)
    found = _reap(server)
    return status if found is None else found


def _exec(argv: list[str]) -> None:
    """In the forked child: a group of its own, default signals, then the server."""
    try:
        os.setpgid(0, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        for number in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
            signal.signal(number, signal.SIG_DFL)
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, f"cannot start {argv[0]!r}: {exc.strerror or exc}\n".encode())
    finally:
        os._exit(127)


def _exit_code(status: int | None) -> int:
    if status is None:
        return 1
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def main(argv: list[str]) -> int:
    group = argv[3] if len(argv) > 3 and argv[2] == "--group" else None
    command = argv[4:] if group is not None else argv[2:]
    if not command or not argv[1].isdigit():
        os.write(2, b"usage: lifeline.py APP_PID [--group CGROUP] COMMAND ARGS...\n")
        return 2
    app = int(argv[1])
    if group is not None:
        try:
            with open(os.path.join(group, "cgroup.procs"), "w", encoding="ascii") as handle:
                handle.write("0")
        except OSError as exc:  # the subreaper still holds every descendant
            os.write(2, f"lifeline: cannot join {group}: {exc.strerror or exc}\n".encode())
            group = None
    signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGUSR1), 0, 0, 0)
    if os.getppid() != app:
        return 1  # the app died before the death signal was asked for
    server = os.fork()
    if server == 0:
        _exec(command)
    with contextlib.suppress(OSError):
        os.setpgid(server, server)  # also here: a SIGTERM right now must find its group
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    status: int | None = None
    deadline: float | None = None
    while status is None:
        wait = 1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        info = signal.sigtimedwait(_WATCHED, wait)
        status = _reap(server)
        if status is not None:
            break
        if info is None:
            if (deadline is not None and time.monotonic() >= deadline) or os.getppid() != app:
                break
        elif info.si_signo == signal.SIGUSR1:
            break
        elif info.si_signo != signal.SIGCHLD and deadline is None:
            with contextlib.suppress(OSError):
                os.killpg(server, signal.SIGTERM)
            deadline = time.monotonic() + TERM_GRACE_S
    found = _kill_all(server, group)
    return _exit_code(status if status is not None else found)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
