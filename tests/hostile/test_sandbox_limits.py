"""The sandbox's limits stop a command and say why: a fork bomb (not "timed out"), the memory
of all its processes together, and what it writes.

Real processes under the real kernel's limits: a pids cgroup and a memory cgroup per call
where the app may make them (as root here), the private tmpfs of the mount namespace.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tui_agent.sandbox import detect
from tui_agent.sandbox.memory_cgroup import memory_parent
from tui_agent.sandbox.pids_cgroup import pids_parent
from tui_agent.tools import ToolContext, ToolOutput, builtin_registry

from ..support.waiting import ends
from ..tools_helpers import call
from .processes import running_with

REGISTRY = builtin_registry()
pytestmark = pytest.mark.skipif(
    not (detect().landlock_abi and detect().namespaces),
    reason="needs Landlock and user namespaces (see tui-agent doctor)",
)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(workspace=workspace.resolve(), command_timeout_s=60)


async def run(ctx: ToolContext, command: str, **policy: object) -> ToolOutput:
    if policy:
        ctx = replace(ctx, sandbox=replace(ctx.sandbox, **policy))  # type: ignore[arg-type]
    return await call(REGISTRY, ctx, "run_command", json.dumps({"command": command}))


@pytest.mark.skipif(
    os.geteuid() == 0 and pids_parent() is None, reason="as root, needs a pids cgroup to make"
)
async def test_a_fork_bomb_is_stopped_and_reported_as_one_not_as_timed_out(
    ctx: ToolContext, marker: str
) -> None:
    """The kernel refuses its forks past the limit; the sandbox sees them refused again and
    again, stops it long before the call's 60 s timeout, and says why."""
    if os.geteuid() != 0:
        pytest.skip("RLIMIT_NPROC refuses the forks; no counter tells the sandbox (root only)")
    # Every process forks on whatever the kernel refuses (dash's own bomb gives up: each
    # shell refused a fork exits, and the tree collapses by itself).
    bomb = ctx.workspace / "bomb.py"
    bomb.write_text(
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    out = await run(ctx, f"{sys.executable} -I -S {bomb}", max_processes=64)
    assert out.is_error
    assert "stopped: it tried to run more than 64 processes" in out.text, out.text[-500:]
    assert "timed out" not in out.text
    assert running_with(marker) == []


async def test_a_command_at_its_process_limit_a_few_times_is_not_stopped(
    ctx: ToolContext,
) -> None:
    """A few refused forks (a script starting more than it may; dash gives up at the first)
    are told, not taken for a fork bomb."""
    out = await run(ctx, "for i in 1 2 3 4 5 6; do sleep 1 & done; wait", max_processes=4)
    assert "Cannot fork" in out.text, out.text
    assert "at most 4 processes" in out.text
    assert "stopped:" not in out.text


@pytest.mark.skipif(memory_parent() is None, reason="needs a memory cgroup to make")
async def test_memory_of_all_processes_together_is_bounded_and_reported(
    ctx: ToolContext, marker: str
) -> None:
    """Five processes of 200 MiB each: each is under the 512 MiB per process, together they
    are not; the kernel stops them and the result says so."""
    hog = f"{sys.executable} -I -S -c 'import time; x = b\"x\" * (200 << 20); time.sleep(30)'"
    command = " & ".join([hog] * 5) + " & wait; echo all five done"
    # Bounded below the hogs' 30 s: a call that let them sleep it out is still running.
    out = await ends(run(ctx, command, memory_mb=512), "the hogs' call")
    assert "stopped: it used more than 512 MiB of memory in total" in out.text, out.text[-800:]
    assert "all five done" not in out.text
    assert running_with(marker) == []


def test_doctor_says_whether_a_fork_bomb_is_stopped_and_memory_bounded_in_total() -> None:
    from tui_agent.sandbox.policy import SandboxPolicy
    from tui_agent.sandbox.protections import missing, report

    caps = detect()
    text = report(SandboxPolicy(memory_mb=700), caps)
    line = next(line for line in text.splitlines() if "total memory" in line)
    if memory_parent() is not None:
        assert "[active ]" in line and "700 MiB for all" in line
    else:
        assert "[absent ]" in line
    assert "fork bomb stopped" in text
    # Good to have, no way out: their absence never makes an approval warn.
    assert not [name for name in missing(SandboxPolicy(), caps) if "memory" in name]


async def test_writing_past_the_quota_in_the_workspace_is_stopped(ctx: ToolContext) -> None:
    """Two files of 40 MiB under a 64 MiB quota: each passes the per-file limit, together they
    do not; the command is stopped before it goes on, and the result says why."""
    command = (
        "dd if=/dev/zero of=a.bin bs=1M count=40 2>/dev/null; sync a.bin; "
        "dd if=/dev/zero of=b.bin bs=1M count=40 2>/dev/null; sync b.bin; "
        "sleep 5; echo went on"
    )
    out = await run(ctx, command, write_mb=64)
    assert "stopped: it wrote more than 64 MiB in the workspace" in out.text, out.text
    assert "went on" not in out.text


async def test_one_file_past_the_quota_is_cut_at_it(ctx: ToolContext) -> None:
    out = await run(ctx, "head -c 100M /dev/zero > big.bin; echo status $?", write_mb=32)
    assert (ctx.workspace / "big.bin").stat().st_size <= 32 << 20
    # The kernel cuts the file at the limit (SIGXFSZ); the file system has then lost the quota
    # too, so the init's watch may stop the shell before it says so: either way, with the cause.
    told = ("File size limit exceeded", "status 153", "stopped: it wrote more than 32 MiB")
    assert any(text in out.text for text in told), out.text


async def test_the_private_temporary_folder_holds_at_most_the_quota(ctx: ToolContext) -> None:
    out = await run(
        ctx,
        'head -c 40M /dev/zero > "$TMPDIR/a"; head -c 40M /dev/zero > "$TMPDIR/b"; echo status $?',
        write_mb=64,
    )
    assert "No space left on device" in out.text, out.text
