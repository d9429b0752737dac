"""Run a program in its own process group with a deadline and an output cap, and end it fully.

Every program a tool starts gets a new session (``start_new_session``), so its children share
its process group and one ``killpg`` reaches them all. On timeout or cancellation the group gets
SIGTERM, then SIGKILL after a grace period, so a command that ignores SIGTERM still dies. When
the program exits normally, whatever it left running in its group is stopped the same way:
nothing a tool starts outlives the call. (A child that moves itself to a new session with
``setsid`` escapes the group; only a cgroup could catch it, and we do not wait for its output.)

At most one program per core runs at a time (the others wait for a slot), and every group still
running when tui-agent ends is killed: see process_limits.

Output (stdout and stderr merged) is read as it comes; the first ``output_cap`` bytes are kept
and the rest only counted, so a command printing 100 MB costs no more memory than the cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..sandbox.spawner import spawn_subprocess
from .process_limits import ended as group_ended
from .process_limits import process_slot
from .process_limits import started as group_started

DEFAULT_GRACE_S = 2.0
# After the program exits, how long background children may keep the output pipe open.
EXIT_LINGER_S = 0.5
_POLL_S = 0.05


class ProcessStartError(Exception):
    """The program could not be started (not found, not executable, ...)."""

    def __init__(self, program: str, reason: str) -> None:
        super().__init__(f"cannot start {program!r}: {reason}")
        self.reason = reason


class ProcessHandle(Protocol):
    """A started program, leader of its process group; its pid (the group's id) cannot be
    given to another process before ``close``."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...

    def kill(self) -> None: ...

    def close(self) -> None: ...

    @property
    def contained(self) -> bool:
        """True when nothing of the group can outlive its leader (the sandbox's PID
        namespace): once it ended there is no group left to stop."""
        ...


# (argv, cwd, env, output fd) -> the program started in a session of its own, stdin /dev/null,
# stdout and stderr to the fd; raises OSError when it cannot start (the sandbox's ``spawn``).
Spawn = Callable[[Sequence[str], Path, Mapping[str, str], int], Awaitable[ProcessHandle]]


@dataclass(frozen=True)
class ProcessResult:
    """How a program ended. ``returncode`` is negative when a signal ended it."""

    output: bytes
    dropped_bytes: int
    returncode: int | None
    timed_out: bool
    stopped_leftovers: bool
    elapsed_s: float


async def run_in_process_group(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    output_cap: int,
    grace_s: float = DEFAULT_GRACE_S,
    preexec: Callable[[], None] | None = None,
    spawn: Spawn | None = None,
) -> ProcessResult:
    """Run ``argv`` (no shell) and return its capped output and how it ended.

    It starts once one of the tool-process slots is free. On cancellation the whole group is
    ended before ``CancelledError`` propagates. ``preexec`` runs in the child before ``exec``
    (the sandbox's confinement, see tui_agent.sandbox.launch); ``spawn``, when given, starts
    the program instead (the sandbox's ``Launch.spawn``: its fork server, see
    tui_agent.sandbox.spawner).
    """
    async with process_slot():
        return await _run(argv, cwd, env, timeout_s, output_cap, grace_s, preexec, spawn)


async def _run(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    output_cap: int,
    grace_s: float,
    preexec: Callable[[], None] | None = None,
    spawn: Spawn | None = None,
) -> ProcessResult:
    started = time.monotonic()
    # Our own pipe rather than asyncio's: we can close it while a child that escaped the group
    # still holds the other end, and proc.wait() does not wait for it to close.
    read_fd, write_fd = os.pipe()
    starting: Awaitable[ProcessHandle] = (
        spawn(argv, cwd, env, write_fd)
        if spawn is not None
        else spawn_subprocess(argv, cwd, env, write_fd, preexec)
    )
    spawning = asyncio.ensure_future(starting)
    spawning.add_done_callback(_known)
    try:
        proc = await asyncio.shield(spawning)
    except asyncio.CancelledError:
        # The program may already run (even have forked) while the spawn is still being set
        # up: asyncio would kill only the direct child. Let it finish, then end the group.
        os.close(read_fd)
        await _stop_spawned(spawning, grace_s)
        raise
    except OSError as exc:
        os.close(read_fd)
        raise ProcessStartError(argv[0], exc.strerror or str(exc)) from None
    finally:
        os.close(write_fd)
    try:
        return await _collect(proc, read_fd, timeout_s, output_cap, grace_s, started)
    finally:
        group_ended(proc.pid)
        proc.close()


def _known(spawning: asyncio.Future[ProcessHandle]) -> None:
    """A spawned program's group is known at once, even to a cancelled caller."""
    if not spawning.cancelled() and spawning.exception() is None:
        group_started(spawning.result().pid)


async def _collect(
    proc: ProcessHandle,
    read_fd: int,
    timeout_s: float,
    output_cap: int,
    grace_s: float,
    started: float,
) -> ProcessResult:
    loop = asyncio.get_running_loop()
    collector = _CappedOutput(output_cap, loop.create_future())
    try:
        transport, _ = await loop.connect_read_pipe(lambda: collector, os.fdopen(read_fd, "rb", 0))
    except BaseException:
        _signal_group(proc.pid, signal.SIGKILL)
        raise
    timed_out = False
    try:
        async with asyncio.timeout(timeout_s):
            await proc.wait()
            await asyncio.wait({collector.closed}, timeout=EXIT_LINGER_S)
    except TimeoutError:
        timed_out = True
    except asyncio.CancelledError:
        # A second cancel (Esc twice, or the app quitting) must not cut the kill short:
        # the group is gone before the cancellation goes on.
        finishing = asyncio.ensure_future(_finish(proc, transport, collector, grace_s))
        while not finishing.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(finishing)
        raise
    stopped = await _finish(proc, transport, collector, grace_s)
    return ProcessResult(
        output=bytes(collector.kept),
        dropped_bytes=collector.dropped,
        returncode=proc.returncode,
        timed_out=timed_out,
        stopped_leftovers=stopped and not timed_out,
        elapsed_s=time.monotonic() - started,
    )


async def _stop_spawned(spawning: asyncio.Future[ProcessHandle], grace_s: float) -> None:
    while not spawning.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(spawning)
    if spawning.cancelled() or spawning.exception() is not None:
        return
    proc = spawning.result()
    stopping = asyncio.ensure_future(stop_process_group(proc.pid, grace_s))
    while not stopping.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(stopping)
    proc.kill()
    with contextlib.suppress(asyncio.CancelledError, TimeoutError):
        await asyncio.wait_for(proc.wait(), grace_s)
    group_ended(proc.pid)
    proc.close()


async def stop_process_group(pgid: int, grace_s: float = DEFAULT_GRACE_S) -> bool:
    """SIGTERM the group; once it is gone or ``grace_s`` has passed, SIGKILL what is left.

    Returns False when the group was already empty.
    """
    if not _group_running(pgid) or not _signal_group(pgid, signal.SIGTERM):
        return False
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and _group_running(pgid):
        await asyncio.sleep(_POLL_S)
    # Always: it also reaches a child forked after the SIGTERM, and is harmless otherwise.
    _signal_group(pgid, signal.SIGKILL)
    # SIGKILL is delivered asynchronously: on a loaded machine a member can still be
    # running for a moment. Callers are promised the group is gone when we return.
    deadline = time.monotonic() + _KILL_SETTLE_S
    while time.monotonic() < deadline and _group_running(pgid):
        await asyncio.sleep(_POLL_S)
    return True


_KILL_SETTLE_S = 2.0


class _CappedOutput(asyncio.Protocol):
    """Keeps the first ``cap`` bytes and counts the rest.

    It reads on past the cap: a writer blocked on a full pipe would never finish.
    """

    def __init__(self, cap: int, closed: asyncio.Future[None]) -> None:
        self.cap = max(0, cap)
        self.kept = bytearray()
        self.dropped = 0
        self.closed = closed

    def data_received(self, data: bytes) -> None:
        kept = data[: self.cap - len(self.kept)]
        self.kept += kept
        self.dropped += len(data) - len(kept)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


async def _finish(
    proc: ProcessHandle,
    transport: asyncio.ReadTransport,
    collector: _CappedOutput,
    grace_s: float,
) -> bool:
    """End the group, reap the program, collect the output still in the pipe."""
    ended = proc.returncode is not None and proc.contained
    stopped = False if ended else await stop_process_group(proc.pid, grace_s)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), grace_s)
    # The group is gone, so the pipe reaches EOF at once, unless something escaped the group.
    await asyncio.wait({collector.closed}, timeout=EXIT_LINGER_S)
    transport.close()
    await asyncio.wait({collector.closed}, timeout=EXIT_LINGER_S)
    return stopped


def _signal_group(pgid: int, signum: signal.Signals) -> bool:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        # Gone, or a member changed its user (a setuid program): nothing more we can do.
        return False
    return True


def _group_running(pgid: int) -> bool:
    """True while a member of the group runs. Zombies do not count: they are dead, and an
    init that is slow to reap them must not stretch every stop to the full grace period."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # no /proc (not Linux): a zombie counts as running; only slower
    return any(_running_member(entry, pgid) for entry in entries if entry.isdigit())


def _running_member(pid: str, pgid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    # Fields after the command name (which may itself hold spaces and parentheses).
    fields = stat[stat.rindex(b")") + 2 :].split()
    return int(fields[2]) == pgid and fields[0] not in (b"Z", b"X")
