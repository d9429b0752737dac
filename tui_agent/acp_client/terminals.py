"""The agent's ``terminal/*`` requests, served by tui-agent's command sandbox.

A terminal is one of the session's background commands (tools/jobs.py): in a process group of
its own, stdin empty, stdout and stderr merged, confined by the session's sandbox (sandbox/,
as ``run_command`` is: workspace-write by default, no network unless allowed), its environment
scrubbed of secrets (tools/environment.py), its group killed with tui-agent. A command given
without arguments is a shell command line (``/bin/sh -c``), as the protocol's clients run it.
Its working folder must be inside the workspace. The workspace is snapshotted (checkpoints/)
before it starts and after it ends, so a rewind undoes what it changed.
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..checkpoints import Checkpointer
from ..sandbox import confinement
from ..sandbox.policy import SandboxMode
from ..session.records import Record
from ..tools.command_result import decode_output
from ..tools.environment import scrubbed_environment
from ..tools.jobs import Job, JobError, JobTable
from ..tools.sandbox import SandboxError, resolve_in_workspace
from ..tools.spec import ToolContext

SHELL = "/bin/sh"
DEFAULT_OUTPUT_LIMIT = 1024 * 1024  # bytes of output kept when the agent names no limit


class TerminalRefused(Exception):
    """A terminal that cannot be made or is not known; the message says why."""


class Terminals:
    """The terminals of one agent session, by id."""

    def __init__(
        self,
        ctx: ToolContext,
        *,
        checkpointer: Checkpointer | None,
        write: Callable[[Record], None],
    ) -> None:
        self.ctx = ctx
        self.checkpointer = checkpointer
        self.write = write
        self.jobs = JobTable()
        self._by_id: dict[str, tuple[Job, int]] = {}  # terminal id -> job, its output limit
        self._after: set[asyncio.Task[None]] = set()

    async def create(
        self,
        command: str,
        args: list[str],
        env: dict[str, str],
        cwd: str | None,
        output_limit: int | None,
        call_id: str,
    ) -> str:
        folder = self._folder(cwd)
        argv = [command, *args] if args else [SHELL, "-c", command]
        shown = " ".join([command, *args])
        checkpointed = await self._checkpoint(call_id)
        confine = functools.partial(
            confinement,
            self.ctx.sandbox,
            folder,
            self.ctx.protected,
            self.ctx.capabilities,
            self.ctx.unprotected,
        )
        environment = {**scrubbed_environment(secret_values=self.ctx.secret_values), **env}
        try:
            job = await self.jobs.start(shown, argv, cwd=folder, env=environment, confine=confine)
        except JobError as exc:
            raise TerminalRefused(str(exc)) from None
        terminal_id = f"term-{job.id}"
        limit = output_limit if output_limit is not None and output_limit > 0 else None
        self._by_id[terminal_id] = (job, limit or DEFAULT_OUTPUT_LIMIT)
        if checkpointed:
            task = asyncio.create_task(self._checkpoint_after(job, call_id))
            self._after.add(task)
            task.add_done_callback(self._after.discard)
        return terminal_id

    def _folder(self, cwd: str | None) -> Path:
        if cwd is None:
            return Path(os.path.realpath(self.ctx.workspace))
        try:
            folder = resolve_in_workspace(cwd, self.ctx)
        except SandboxError as exc:
            raise TerminalRefused(str(exc)) from None
        if not folder.is_dir():
            raise TerminalRefused(f"{cwd} is not a folder")
        return folder

    async def _checkpoint(self, call_id: str) -> bool:
        if self.checkpointer is None:
            return False
        policy = self.ctx.sandbox
        if policy.mode is SandboxMode.READ_ONLY:
            return False  # the sandbox refuses its writes (where the OS enforces it)
        start = await asyncio.to_thread(self.checkpointer.snapshot, call_id, "terminal")
        self.write(start)
        return start.error is None and start.tree is not None

    async def _checkpoint_after(self, job: Job, call_id: str) -> None:
        await job.ended.wait()
        assert self.checkpointer is not None
        done = await asyncio.to_thread(self.checkpointer.snapshot_after, call_id)
        self.write(done)

    def _job(self, terminal_id: str) -> tuple[Job, int]:
        found = self._by_id.get(terminal_id)
        if found is None:
            raise TerminalRefused(f"no terminal {terminal_id!r}")
        return found

    def output(self, terminal_id: str) -> tuple[str, bool, dict[str, Any] | None]:
        """Its output so far (at most its limit, the newest), whether some was cut, and how it
        ended (None while it runs)."""
        job, limit = self._job(terminal_id)
        data, dropped = job.output.since(0, limit)
        return decode_output(data), dropped > 0, None if job.running else exit_status(job)

    async def wait(self, terminal_id: str) -> dict[str, Any]:
        job, _ = self._job(terminal_id)
        await job.ended.wait()
        return exit_status(job)

    async def kill(self, terminal_id: str) -> None:
        job, _ = self._job(terminal_id)
        await self.jobs.stop(job)

    async def release(self, terminal_id: str) -> None:
        job, _ = self._job(terminal_id)
        await self.jobs.stop(job)
        self._by_id.pop(terminal_id, None)

    async def close(self) -> None:
        await self.jobs.stop_all()
        if self._after:
            await asyncio.gather(*self._after, return_exceptions=True)


def exit_status(job: Job) -> dict[str, Any]:
    """``exit_code`` and ``signal`` as the protocol says them."""
    code = job.returncode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return {"exit_code": None, "signal": name}
    return {"exit_code": code, "signal": None}
