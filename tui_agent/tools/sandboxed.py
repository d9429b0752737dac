"""Run a tool's program under the sandbox of the call (``ctx.sandbox``) and report it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..sandbox import confinement
from ..sandbox.notes import blocked_notes
from ..sandbox.policy import SandboxPolicy
from .command_result import describe_result
from .process import run_in_process_group
from .spec import ToolContext, ToolOutput


async def run_sandboxed(
    argv: Sequence[str],
    ctx: ToolContext,
    policy: SandboxPolicy,
    *,
    env: Mapping[str, str],
    timeout_s: float,
    notes: tuple[str, ...] = (),
) -> ToolOutput:
    """Output and how it ended, plus a note when the sandbox probably blocked something.
    Raises ``ProcessStartError`` like ``run_in_process_group``."""
    with confinement(
        policy, ctx.workspace, ctx.protected, ctx.capabilities, ctx.unprotected
    ) as launch:
        result = await run_in_process_group(
            argv,
            cwd=ctx.workspace,
            env={**env, **launch.env},
            timeout_s=timeout_s,
            output_cap=ctx.command_output_cap,
            preexec=launch.preexec,
            spawn=launch.spawn,
        )
        if launch.stopped_leftovers():
            result = replace(result, stopped_leftovers=True)
        notes = (*notes, *launch.limits_hit())
    output = describe_result(result, timeout_s=timeout_s, notes=notes)
    extra = blocked_notes(output.text, output.is_error, policy)
    if not extra:
        return output
    return ToolOutput(output.text + "".join(f"\n[{line}]" for line in extra), output.is_error)
