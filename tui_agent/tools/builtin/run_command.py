"""run_command: a shell command in the workspace, in its own process group, with a deadline,
under the call's sandbox."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...sandbox.policy import ToolSandbox
from ..environment import scrubbed_environment
from ..process import ProcessStartError
from ..sandboxed import run_sandboxed
from ..spec import Risk, ToolContext, ToolOutput, ToolSpec
from .job_tools import start_job

SHELL = "/bin/sh"


class RunCommandArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    command: str = Field(
        min_length=1,
        description="A shell command (run by /bin/sh -c) in the workspace directory. No input.",
    )
    timeout_s: float | None = Field(
        None,
        gt=0,
        description="Seconds before the command is stopped (default and ceiling set by the user).",
    )
    background: bool = Field(
        False,
        description=(
            "Start the command as a background job and return at once with its id (for a dev "
            "server or a watcher); read its output with job_output, stop it with stop_job. "
            "No timeout applies; it ends with the session."
        ),
    )

    @field_validator("command")
    @classmethod
    def _no_nul(cls, command: str) -> str:
        if "\0" in command:
            raise ValueError("must not contain a NUL character")
        return command


def effective_timeout(args: RunCommandArgs, ctx: ToolContext) -> float:
    """The model may ask for less time than the user's ceiling, never more."""
    if args.timeout_s is None:
        return ctx.command_timeout_s
    return min(args.timeout_s, ctx.command_timeout_s)


async def run_command(args: RunCommandArgs, ctx: ToolContext) -> ToolOutput:
    """Output (stdout and stderr merged, capped) and how the command ended."""
    if args.background:
        return await start_job(args.command, ctx)
    timeout_s = effective_timeout(args, ctx)
    notes: tuple[str, ...] = ()
    if args.timeout_s is not None and args.timeout_s > timeout_s:
        notes = (f"timeout_s {args.timeout_s:g} was capped at the limit of {timeout_s:g} s",)
    try:
        return await run_sandboxed(
            [SHELL, "-c", args.command],
            ctx,
            ctx.sandbox,
            env=scrubbed_environment(secret_values=ctx.secret_values),
            timeout_s=timeout_s,
            notes=notes,
        )
    except ProcessStartError as exc:
        return ToolOutput(str(exc), is_error=True)


RUN_COMMAND = ToolSpec(
    name="run_command",
    description=(
        "Run a shell command with /bin/sh -c in the workspace directory and return its output "
        "(stdout and stderr merged) and exit code. Stdin is empty. The command and everything "
        "it starts are stopped at the timeout; long output is truncated. With background: true "
        "it starts a job and returns its id at once."
    ),
    args_model=RunCommandArgs,
    risk=Risk.EXECUTE,
    run=run_command,
    sandbox=ToolSandbox(),
)
