"""The sandbox's fork server: a small process that forks each confined command's launcher.

A fork copies the forking process's page tables, and the copy's exit tears them down again, so
every fork of the app (57 MB of imports alone, more once a session runs) and every exit of
such a copy costs in proportion to the app's memory. The launcher, the init and the command
were all copies of the app. This process is a fresh ``python -I -S`` that imports only the
sandbox's launch code (~16 MB), started once by the app without a fork of it (``spawner.py``);
for each confined call the app sends it, over a unix socketpair, the call's ``Plan``, argv,
folder and environment, and its standard streams and report pipe as file descriptors. The
server forks the launcher from its own small image, and the launcher does exactly what
``launch.py`` does after a fork of the app: the same namespaces, init, limits and Landlock,
with every failure before ``exec`` ending the call with ``SETUP_FAILED``.

Per call the app also sends one end of a socketpair of the call's own, on which the server
answers: ``P`` the launcher's pid (the leader of the call's process group, in a session of
its own), ``E`` the errno of the command's ``exec`` or ``chdir`` (0: it runs), ``X`` how the
launcher ended (its return code, as ``subprocess`` gives it). The server learns of the end
without reaping (``waitid`` with ``WNOWAIT``): the launcher stays a zombie, so its pid and the
group's id cannot be given to another process, until the app closes its end of the call's
socket (it has stopped the group by then). So the app signals the group itself, with no race.

It dies with the app: ``PR_SET_PDEATHSIG`` and a check that its parent still is the app
(SIGKILL, so nothing of it can be caught), and each launcher dies with it the same way, and
each namespace with its launcher: kill -9 of the app ends every command. It ignores the
terminal's signals (a session of its own) and ends when the app closes the control socket.

The command's ``exec``: as ``subprocess`` does it, each folder of the environment's ``PATH``
for a bare name, the first error not ENOENT/ENOTDIR kept, reported on a close-on-exec pipe
that only the command holds (the launcher and the init close it).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import selectors
import signal
import socket
import struct
import sys
from dataclasses import dataclass, replace

from .launch import Plan, fail, launch_or_fail
from .namespaces import die_with_parent, not_dumpable, raw_fork

READY = b"R"
MESSAGE = struct.Struct("=ci")
_MAX_REQUEST = 1 << 20
_MAX_FDS = 8
_EXEC_FAILED = 255


@dataclass(frozen=True)
class Request:
    """One confined call, as the app sends it (pickled; the fds travel beside it)."""

    argv: tuple[bytes, ...]
    cwd: bytes
    env: dict[bytes, bytes]
    plan: Plan


@dataclass
class _Call:
    reply: socket.socket
    pid: int
    exec_read: int  # -1 once the command's exec (or its failure) is known
    pidfd: int
    errno: int = 0
    ended: bool = False


def main() -> None:
    """``python -I -S -c ... APP_PID FD``: serve the app until it closes the socket or dies."""
    app_pid, fd = int(sys.argv[1]), int(sys.argv[2])
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    try:
        die_with_parent()
        not_dumpable()  # each call's plan and environment pass through its memory
    except OSError:
        os._exit(1)
    if os.getppid() != app_pid:
        os._exit(1)  # the app ended before the tie was made
    control = socket.socket(fileno=fd)
    control.sendall(READY)
    _serve(control)


def _serve(control: socket.socket) -> None:
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, None)
    calls: list[_Call] = []
    while True:
        for key, _ in selector.select():
            if key.data is None:
                if not _accept(control, selector, calls):
                    _end_all(calls)
                    return
            else:
                kind, call = key.data
                _event(kind, call, selector, calls)


def _accept(control: socket.socket, selector: selectors.BaseSelector, calls: list[_Call]) -> bool:
    try:
        data, fds, _, _ = socket.recv_fds(control, _MAX_REQUEST, _MAX_FDS)
    except OSError:
        return False
    if not data:
        return False  # the app closed it: it is ending
    if len(fds) != 5:
        for fd in fds:
            os.close(fd)
        return True
    reply = socket.socket(fileno=fds[0])
    try:
        request = pickle.loads(data)
        assert isinstance(request, Request)
        call = _start(request, reply, fds[1:])
    except Exception:
        _send(reply, b"E", 5)  # EIO: the app reports that the command did not start
        reply.close()
        return True
    finally:
        for fd in fds[1:]:
            os.close(fd)
    calls.append(call)
    selector.register(call.reply, selectors.EVENT_READ, ("reply", call))
    selector.register(call.exec_read, selectors.EVENT_READ, ("exec", call))
    selector.register(call.pidfd, selectors.EVENT_READ, ("exit", call))
    return True


def _start(request: Request, reply: socket.socket, fds: list[int]) -> _Call:
    stdin, stdout, stderr, report = fds
    plan = replace(request.plan, app_pid=os.getpid(), report_fd=report if report >= 0 else -1)
    exec_read, exec_write = os.pipe2(os.O_CLOEXEC)
    pid = raw_fork()  # no fork handlers: nothing else runs in this process
    if pid == 0:
        _child(request, plan, (stdin, stdout, stderr), report, exec_write)
    os.close(exec_write)
    pidfd = os.pidfd_open(pid)
    _send(reply, b"P", pid)
    return _Call(reply, pid, exec_read, pidfd)


def _child(
    request: Request, plan: Plan, stdio: tuple[int, int, int], report: int, exec_write: int
) -> None:
    """The launcher. Never returns."""
    try:
        os.setsid()
        for target, fd in enumerate(stdio):
            os.dup2(fd, target, inheritable=True)
        _close_all_but({0, 1, 2, report, exec_write})
        try:
            os.chdir(request.cwd)
        except OSError as exc:
            _exec_failed(exec_write, exc.errno or 5)
        launch_or_fail(plan)
        # The command: the streams and the exec pipe only, dispositions as subprocess leaves
        # them (Python ignores SIGPIPE and SIGXFSZ; RLIMIT_FSIZE needs SIGXFSZ's default).
        _close_all_but({0, 1, 2, exec_write})
        for signum in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(signum, signal.SIG_DFL)
        _exec(request.argv, request.env, exec_write)
    except BaseException as exc:
        fail(f"{type(exc).__name__}: {exc}")


def _exec(argv: tuple[bytes, ...], env: dict[bytes, bytes], exec_write: int) -> None:
    program = argv[0]
    if os.path.dirname(program):
        candidates = [program]
    else:
        folders = os.get_exec_path(env)  # type: ignore[arg-type]  # bytes keys: b"PATH"
        candidates = [os.path.join(os.fsencode(folder), program) for folder in folders]
    kept = 0
    last = 2
    for path in candidates:
        try:
            os.execve(path, argv, env)
        except OSError as exc:
            last = exc.errno or 5
            if last not in (2, 20) and not kept:  # ENOENT, ENOTDIR: try the next folder
                kept = last
    _exec_failed(exec_write, kept or last)


def _exec_failed(exec_write: int, errno: int) -> None:
    with contextlib.suppress(OSError):
        os.write(exec_write, struct.pack("=i", errno))
    os._exit(_EXEC_FAILED)


def _close_all_but(keep: set[int]) -> None:
    low = 0
    for fd in sorted(fd for fd in keep if fd >= 0):
        if fd > low:  # closerange(n, n) would close everything from n (close_range(n, -1))
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 20)


def _event(kind: str, call: _Call, selector: selectors.BaseSelector, calls: list[_Call]) -> None:
    if kind == "exec":
        data = b""
        with contextlib.suppress(OSError):
            data = os.read(call.exec_read, 4)
        if len(data) == 4:
            call.errno = struct.unpack("=i", data)[0]
        selector.unregister(call.exec_read)
        os.close(call.exec_read)
        call.exec_read = -1
        _send(call.reply, b"E", call.errno)
        if call.ended:
            _report_end(call)
        return
    if kind == "exit":
        selector.unregister(call.pidfd)
        call.ended = True
        if call.exec_read < 0:
            _report_end(call)
        return
    # The app closed its end (or sent something it should not): release the call.
    with contextlib.suppress(OSError):
        if call.reply.recv(16):
            return
    selector.unregister(call.reply)
    if call.exec_read >= 0:
        selector.unregister(call.exec_read)
        os.close(call.exec_read)
    if not call.ended:
        selector.unregister(call.pidfd)
        with contextlib.suppress(OSError):
            os.kill(call.pid, signal.SIGKILL)  # abandoned: the app no longer watches it
    with contextlib.suppress(ChildProcessError):
        os.waitpid(call.pid, 0)
    os.close(call.pidfd)
    call.reply.close()
    calls.remove(call)


def _report_end(call: _Call) -> None:
    """The launcher ended: say how, leaving it unreaped until the app lets go of the call."""
    try:
        info = os.waitid(os.P_PID, call.pid, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        info = None
    if info is None:
        code = -signal.SIGKILL
    elif info.si_code == os.CLD_EXITED:
        code = info.si_status
    else:
        code = -info.si_status
    _send(call.reply, b"X", code)


def _send(reply: socket.socket, kind: bytes, value: int) -> None:
    with contextlib.suppress(OSError):
        reply.send(MESSAGE.pack(kind, value))


def _end_all(calls: list[_Call]) -> None:
    for call in calls:
        with contextlib.suppress(OSError):
            os.kill(call.pid, signal.SIGKILL)
    os._exit(0)
