"""The app's side of the fork server (``fork_server.py``): start it once, hand it calls.

``spawner(plan, report_fd, preexec)`` is what a confined call starts its program with (the
``spawn`` of ``confinement``'s ``Launch``): through the server when it runs, else the old way, a
fork of the app with ``preexec`` as its ``preexec_fn``. Both confine the same way; a command
that cannot be confined never runs unconfined on either path.

- The server is started on the first confined call, or earlier by ``prepare()`` (when a call
  is being approved); until it has said it is ready, calls fork the app. It is started only
  from the main thread: ``PR_SET_PDEATHSIG`` fires when the *thread* that started a process
  ends, and the main thread lasts as long as the app.
- When the server cannot start or has died, a call forks the app (checked before the call is
  sent: a request the server took is never sent twice). When it dies during a call, its
  launcher dies with it (and the namespace with the launcher): the call ends killed, or, before
  the command was known to run, as a start error. Nothing runs unconfined either way.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path

from .fork_server import MESSAGE, READY, Request
from .launch import Plan

# The packages' own __init__ are skipped (tui_agent.sandbox's imports the whole sandbox, asyncio
# included): the server imports fork_server and what launch.py needs, ~15 MB resident, not ~23.
_CODE = """import sys, types
for name in ("tui_agent", "tui_agent.sandbox"):
    package = types.ModuleType(name)
    package.__path__ = [sys.argv[3] + "/" + name.replace(".", "/")]
    sys.modules[name] = package
from tui_agent.sandbox.fork_server import main
main()
"""
_ROOT = str(Path(__file__).resolve().parents[2])


class ServerUnavailable(Exception):
    """The call was not sent: start it another way."""


class Subprocess:
    """An ``asyncio`` child as a process handle (``tools/process.py``'s ``ProcessHandle``)."""

    contained = False  # reaped at once: a stop of its group after it ended costs nothing

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process
        self.pid = process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    async def wait(self) -> int:
        return await self._process.wait()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self._process.kill()

    def close(self) -> None:
        """Nothing to release: asyncio reaps its own children."""


async def spawn_subprocess(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    output_fd: int,
    preexec: Callable[[], None] | None = None,
) -> Subprocess:
    """A fork of the app: ``argv`` in a session of its own, stdin /dev/null, stdout and
    stderr to ``output_fd``. Raises OSError when it cannot start."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=output_fd,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=preexec,
    )
    return Subprocess(process)


class ServerProcess:
    """A call the server started: its launcher's pid (the group's id), unreaped until
    ``close`` (so signalling the group can reach no other process)."""

    def __init__(self, pid: int, reply: socket.socket, contained: bool) -> None:
        self.pid = pid
        self.contained = contained  # a PID namespace: nothing of the group outlives it
        self.returncode: int | None = None
        self._reply = reply
        self._closed = False

    async def wait(self) -> int:
        while self.returncode is None:
            kind, value = await _receive(self._reply)
            if kind == b"X":
                self.returncode = value
            elif kind == b"":
                self.returncode = -signal.SIGKILL  # the server died: its launchers with it
        return self.returncode

    def kill(self) -> None:
        if not self._closed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        """Let the server reap the launcher (after the group was stopped)."""
        if not self._closed:
            self._closed = True
            self._reply.close()


async def _receive(reply: socket.socket) -> tuple[bytes, int]:
    loop = asyncio.get_running_loop()
    try:
        data = await loop.sock_recv(reply, MESSAGE.size)
    except OSError:
        data = b""
    if len(data) != MESSAGE.size:
        return b"", 0
    kind, value = MESSAGE.unpack(data)
    return kind, value


class _Server:
    def __init__(self) -> None:
        self.owner = os.getpid()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control = ours
        self.ready = False
        self.dead = False
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    "-S",
                    "-c",
                    _CODE,
                    str(os.getpid()),
                    str(theirs.fileno()),
                    _ROOT,
                ],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={},
                start_new_session=True,
            )
        except OSError:
            self.process = None
            self.dead = True
        finally:
            theirs.close()
        ours.setblocking(False)

    def usable(self) -> bool:
        if self.dead or os.getpid() != self.owner:
            return False
        if not self.ready:
            try:
                said = self.control.recv(len(READY))
            except BlockingIOError:
                return False
            except OSError:
                said = b""
            if said != READY:
                self.stop()
                return False
            self.ready = True
        return True

    def send(self, request: Request, fds: list[int]) -> None:
        data = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            socket.send_fds(self.control, [data], fds)
        except OSError as exc:
            if exc.errno in (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN, errno.EBADF):
                self.stop()
            raise ServerUnavailable(str(exc)) from None

    def stop(self) -> None:
        self.dead = True
        with contextlib.suppress(OSError):
            self.control.close()
        if self.process is not None:
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                self.process.wait(1)


_server: list[_Server] = []
_lock = threading.Lock()


def prepare() -> None:
    """Start the server if it is not running yet (from the main thread only; else nothing)."""
    if threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        if _server and _server[0].owner == os.getpid():
            return
        _server[:] = [_Server()]


def server() -> _Server | None:
    """The running, ready server, started here if there is none; None until it is ready."""
    prepare()
    found = _server[0] if _server else None
    return found if found is not None and found.usable() else None


def stop() -> None:
    """End the server (its calls die with it); the next ``prepare`` starts a new one. (One
    found dead stays so: calls fork the app from then on.)"""
    with _lock:
        if _server and _server[0].owner == os.getpid():
            _server[0].stop()
            _server.clear()


@atexit.register
def _at_exit() -> None:
    stop()


Started = ServerProcess | Subprocess
Spawn = Callable[[Sequence[str], Path, Mapping[str, str], int], Awaitable[Started]]


def spawner(plan: Plan, report_fd: int, preexec: Callable[[], None]) -> Spawn:
    """How a confined call starts its program (see the module's text)."""

    async def spawn(
        argv: Sequence[str], cwd: Path, env: Mapping[str, str], output_fd: int
    ) -> ServerProcess | Subprocess:
        found = server()
        if found is not None:
            with contextlib.suppress(ServerUnavailable):
                return await _through(found, plan, report_fd, argv, cwd, env, output_fd)
        return await spawn_subprocess(argv, cwd, env, output_fd, preexec)

    return spawn


async def _through(
    found: _Server,
    plan: Plan,
    report_fd: int,
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    output_fd: int,
) -> ServerProcess:
    request = Request(
        tuple(os.fsencode(arg) for arg in argv),
        os.fsencode(cwd),
        {os.fsencode(key): os.fsencode(value) for key, value in env.items()},
        plan,
    )
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.setblocking(False)
    devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    try:
        found.send(request, [theirs.fileno(), devnull, output_fd, output_fd, report_fd])
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
        os.close(devnull)
    try:
        kind, pid = await _receive(ours)
        if kind != b"P":
            raise OSError(errno.EIO, "the sandbox's fork server ended")
        kind, failure = await _receive(ours)
        process = ServerProcess(pid, ours, plan.namespaces)
        if kind != b"E":
            raise OSError(errno.EIO, "the sandbox's fork server ended")
        if failure:
            await process.wait()
            raise OSError(failure, os.strerror(failure), argv[0])
    except BaseException:
        ours.close()
        raise
    return process
