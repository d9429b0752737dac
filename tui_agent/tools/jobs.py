"""Background commands: ``run_command`` with ``background: true`` starts a job and returns at once.

A job is a command kept running after its call ended (a dev server, a watcher). It is started
as a foreground command is: in a process group of its own, stdin empty, stdout and stderr
merged, under the sandbox the call was approved with (the confinement stays open for the job's
whole life: its private temporary folder, its cgroups). It takes none of the tool-process
slots (a server that runs for an hour would hold one for an hour); at most ``MAX_RUNNING``
jobs run at once.

Its output is kept as a tail: the newest ``KEEP_BYTES``, the rest only counted. The model
reads what came since its last read (``job_output``: at most ``READ_BYTES``, the newest) and
stops a job (``stop_job``); the app lists them (/jobs).

A job ends when its command exits (whatever it left running in its group is stopped, as for a
foreground command), when it is stopped (SIGTERM to its group, SIGKILL after the grace
period), and when the session closes (``stop_all``). Its group is known to ``process_limits``
while it runs, so it is killed when tui-agent ends, on SIGTERM and SIGHUP too; confined, its
launcher dies with the app even when the app is killed (``sandbox/launch.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..sandbox.spawner import spawn_subprocess
from .process import (
    DEFAULT_GRACE_S,
    EXIT_LINGER_S,
    ProcessHandle,
    ProcessStartError,
    stop_process_group,
)
from .process_limits import ended as group_ended
from .process_limits import started as group_started

if TYPE_CHECKING:
    from ..sandbox.confine import Launch

MAX_RUNNING = 8
KEEP_BYTES = 256 * 1024
READ_BYTES = 16 * 1024


class JobError(Exception):
    """A job could not be started (too many running, the program would not start)."""


class TailOutput(asyncio.Protocol):
    """The newest ``keep`` bytes of a job's output, and how many came in all."""

    def __init__(self, keep: int, changed: Callable[[], None]) -> None:
        self.keep = max(1, keep)
        self.data = bytearray()
        self.total = 0  # bytes received in all; ``data`` holds the last len(data) of them
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._changed = changed

    @property
    def start(self) -> int:
        """The offset (in the whole output) of the first byte still kept."""
        return self.total - len(self.data)

    def data_received(self, data: bytes) -> None:
        self.total += len(data)
        self.data += data
        if len(self.data) > self.keep:
            del self.data[: len(self.data) - self.keep]
        self._changed()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        self._changed()

    def since(self, offset: int, limit: int) -> tuple[bytes, int]:
        """The output after ``offset``, at most its newest ``limit`` bytes, and how many bytes
        after ``offset`` are not in it (dropped from the tail, or beyond ``limit``)."""
        begin = max(offset, self.total - limit, self.start)
        return bytes(self.data[begin - self.start :]), max(0, begin - offset)


@dataclass
class Job:
    """One background command. ``state``: running, exited, stopped, or failed (did not start).
    ``returncode`` is negative when a signal ended it."""

    id: int
    command: str
    keep_bytes: int = KEEP_BYTES
    state: str = "running"
    returncode: int | None = None
    read_to: int = 0  # the model has read the output up to here
    notes: tuple[str, ...] = ()  # why the sandbox stopped it at a limit
    pgid: int | None = None
    stopping: bool = False
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    output: TailOutput = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.output = TailOutput(self.keep_bytes, self.changed.set)

    @property
    def running(self) -> bool:
        return self.state == "running"

    def describe_end(self) -> str:
        """How it ended, for the model and the list: 'exit code 0', 'stopped', ..."""
        if self.running:
            return "still running"
        if self.state == "stopped":
            return "stopped"
        if self.returncode is not None and self.returncode < 0:
            return f"ended by signal {-self.returncode}"
        return f"exit code {self.returncode}"


class JobTable:
    """The jobs of one session, by id (1, 2, ...). ``listeners`` are told when a job starts or
    ends (the app repaints its list)."""

    def __init__(self, *, max_running: int = MAX_RUNNING, keep_bytes: int = KEEP_BYTES) -> None:
        self.max_running = max_running
        self.keep_bytes = keep_bytes
        self._jobs: dict[int, Job] = {}
        self._next = 1
        self.closed = False
        self.listeners: list[Callable[[Job], None]] = []

    def get(self, job_id: int) -> Job | None:
        return self._jobs.get(job_id)

    def jobs(self) -> list[Job]:
        return list(self._jobs.values())

    def running(self) -> list[Job]:
        return [job for job in self._jobs.values() if job.running]

    async def start(
        self,
        command: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        confine: Callable[[], AbstractContextManager[Launch]],
    ) -> Job:
        """Start ``argv`` as a job, once it runs (raises ``JobError`` when it cannot)."""
        if self.closed:
            raise JobError("the session is closing: no new background command")
        if len(self.running()) >= self.max_running:
            raise JobError(
                f"{self.max_running} background commands are running already: "
                "stop one with stop_job first"
            )
        job = Job(self._next, command, self.keep_bytes)
        self._next += 1
        spawned: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        job.task = asyncio.create_task(_run(job, argv, cwd, env, confine, spawned))
        job.task.add_done_callback(lambda _: self._tell(job))
        try:
            await asyncio.shield(spawned)
        except ProcessStartError as exc:
            raise JobError(str(exc)) from None
        self._jobs[job.id] = job
        self._tell(job)
        return job

    async def stop(self, job: Job, grace_s: float = DEFAULT_GRACE_S) -> bool:
        """Stop a running job's whole group and wait for it to end. False when it had ended."""
        if not job.running or job.pgid is None:
            return False
        job.stopping = True
        # Shielded: a caller that goes away (a closed list, Esc) must not leave the group
        # between its SIGTERM and its SIGKILL.
        await asyncio.shield(stop_process_group(job.pgid, grace_s))
        await job.ended.wait()
        return True

    async def stop_all(self, grace_s: float = DEFAULT_GRACE_S) -> None:
        """The session closes: every running job is stopped, and no new one starts."""
        self.closed = True
        await asyncio.gather(*(self.stop(job, grace_s) for job in self.running()))

    def _tell(self, job: Job) -> None:
        for listener in list(self.listeners):
            with contextlib.suppress(Exception):  # a listener's bug never stops a job
                listener(job)


async def _run(
    job: Job,
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    confine: Callable[[], AbstractContextManager[Launch]],
    spawned: asyncio.Future[None],
) -> None:
    """The job's life: confined, spawned, read until it exits or is stopped, then ended."""
    try:
        with confine() as launch:
            started = await _spawn(argv, cwd, {**env, **launch.env}, launch, job, spawned)
            if started is None:
                return
            proc, transport = started
            try:
                await proc.wait()
                await asyncio.wait({job.output.closed}, timeout=EXIT_LINGER_S)
            except asyncio.CancelledError:
                job.stopping = True  # the event loop is closing: the group goes below
                raise
            finally:
                # What it left running in its group goes with it (as for a foreground call).
                await stop_process_group(proc.pid, DEFAULT_GRACE_S)
                group_ended(proc.pid)
                transport.close()  # also when a process that escaped the group holds the pipe
                job.notes = launch.limits_hit()
                job.returncode = proc.returncode
                job.state = "stopped" if job.stopping else "exited"
                proc.close()
    except Exception as exc:  # the job fails, the app goes on
        if not spawned.done():
            spawned.set_exception(ProcessStartError(argv[0], str(exc)))
        job.state = "failed"
    finally:
        if job.state == "running":
            job.state = "failed"
        job.ended.set()
        job.changed.set()


async def _spawn(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    launch: Launch,
    job: Job,
    spawned: asyncio.Future[None],
) -> tuple[ProcessHandle, asyncio.ReadTransport] | None:
    read_fd, write_fd = os.pipe()
    try:
        # Confined: through the sandbox's fork server where it runs (sandbox/spawner.py).
        if launch.spawn is not None:
            proc: ProcessHandle = await launch.spawn(argv, cwd, env, write_fd)
        else:
            proc = await spawn_subprocess(argv, cwd, env, write_fd, launch.preexec)
    except OSError as exc:
        os.close(read_fd)
        job.state = "failed"
        spawned.set_exception(ProcessStartError(argv[0], exc.strerror or str(exc)))
        return None
    finally:
        os.close(write_fd)
    group_started(proc.pid)
    job.pgid = proc.pid
    loop = asyncio.get_running_loop()
    try:
        pipe = os.fdopen(read_fd, "rb", 0)
        transport, _ = await loop.connect_read_pipe(lambda: job.output, pipe)
    except BaseException:
        await stop_process_group(proc.pid, 0)
        group_ended(proc.pid)
        proc.close()
        raise
    spawned.set_result(None)
    return proc, transport
