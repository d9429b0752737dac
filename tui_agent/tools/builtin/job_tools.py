"""The background jobs' side of the tools: starting one (``run_command`` with ``background``),
``job_output`` (what it printed since the last read) and ``stop_job``.

What a job printed reaches the model as a foreground command's output does, and more
carefully, since a server prints for as long as it runs: colour and cursor sequences are
dropped, every other control character is made visible, the session's secret values are
redacted, and one read returns at most ``READ_BYTES`` (the newest; what was skipped is said).
"""

from __future__ import annotations

import asyncio
import functools
import re

from pydantic import BaseModel, ConfigDict, Field

from ...sandbox import confinement
from ...session.redaction import Redactor
from ...text.sanitize import visible
from ..command_result import decode_output
from ..environment import scrubbed_environment
from ..jobs import READ_BYTES, Job, JobError
from ..spec import Risk, ToolContext, ToolOutput, ToolSpec

SHELL = "/bin/sh"
MAX_WAIT_S = 30.0
# CSI (colours, cursor moves), OSC (titles, links) and two-character escapes.
_TERMINAL_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]"
)
NO_JOBS = "background commands are not available here"


async def start_job(command: str, ctx: ToolContext) -> ToolOutput:
    """``command`` as a background job under the call's sandbox: its id, at once."""
    if ctx.jobs is None:
        return ToolOutput(NO_JOBS, is_error=True)

    confine = functools.partial(
        confinement, ctx.sandbox, ctx.workspace, ctx.protected, ctx.capabilities, ctx.unprotected
    )
    try:
        job = await ctx.jobs.start(
            command,
            [SHELL, "-c", command],
            cwd=ctx.workspace,
            env=scrubbed_environment(secret_values=ctx.secret_values),
            confine=confine,
        )
    except JobError as exc:
        return ToolOutput(str(exc), is_error=True)
    return ToolOutput(
        f"started background job {job.id} (running under the {ctx.sandbox.label()} sandbox); "
        f'read its output with job_output {{"job_id": {job.id}}}, stop it with stop_job'
    )


def job_plain(raw: bytes, secrets: tuple[str, ...]) -> str:
    """A job's output decoded, terminal sequences dropped, CRLF as a newline, secrets redacted
    (the app's list shows it through its own sanitizer)."""
    text = _TERMINAL_SEQUENCE.sub("", decode_output(raw)).replace("\r\n", "\n")
    return Redactor(secrets).redact(text)


def job_text(raw: bytes, secrets: tuple[str, ...]) -> str:
    """A job's output as the model sees it: ``job_plain`` with every other control character
    made visible."""
    return visible(job_plain(raw, secrets))


class JobOutputArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    job_id: int = Field(ge=1, description="The id run_command gave when it started the job.")
    wait_s: float = Field(
        0,
        ge=0,
        le=MAX_WAIT_S,
        description=(
            "Wait up to this many seconds for new output or for the job to end (0: answer at once)."
        ),
    )


async def job_output(args: JobOutputArgs, ctx: ToolContext) -> ToolOutput:
    job = ctx.jobs.get(args.job_id) if ctx.jobs is not None else None
    if job is None:
        return ToolOutput(f"there is no background job {args.job_id}", is_error=True)
    if args.wait_s and job.running and job.output.total == job.read_to:
        job.changed.clear()
        try:
            async with asyncio.timeout(args.wait_s):
                await job.changed.wait()
        except TimeoutError:
            pass
    return ToolOutput(read_new(job, ctx.secret_values))


def read_new(job: Job, secrets: tuple[str, ...] = ()) -> str:
    """What the job printed since the last read (the newest ``READ_BYTES``), and its state."""
    data, skipped = job.output.since(job.read_to, READ_BYTES)
    job.read_to = job.output.total
    lines = [f"[job {job.id}: {job.describe_end()}]"]
    if skipped:
        lines.append(f"[{skipped:,} earlier bytes of new output skipped: the newest are below]")
    body = job_text(data, secrets) if data else "(no new output)"
    if not body.endswith("\n"):
        body += "\n"
    end = "".join(f"[{note}]\n" for note in job.notes)
    return "\n".join(lines) + "\n" + body + end.rstrip("\n")


class StopJobArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    job_id: int = Field(ge=1, description="The id of the background job to stop.")


async def stop_job(args: StopJobArgs, ctx: ToolContext) -> ToolOutput:
    job = ctx.jobs.get(args.job_id) if ctx.jobs is not None else None
    if ctx.jobs is None or job is None:
        return ToolOutput(f"there is no background job {args.job_id}", is_error=True)
    if not await ctx.jobs.stop(job):
        return ToolOutput(f"job {job.id} had ended already ({job.describe_end()})")
    return ToolOutput(read_new(job, ctx.secret_values))


JOB_OUTPUT = ToolSpec(
    name="job_output",
    description=(
        "Read what a background job (run_command with background: true) printed since the "
        "last read, and whether it still runs. Optionally wait a few seconds for new output."
    ),
    args_model=JobOutputArgs,
    risk=Risk.READ,
    run=job_output,
)

STOP_JOB = ToolSpec(
    name="stop_job",
    description=(
        "Stop a background job and everything it started; returns its last output. "
        "Only jobs this session started can be stopped."
    ),
    args_model=StopJobArgs,
    risk=Risk.READ,
    run=stop_job,
)
