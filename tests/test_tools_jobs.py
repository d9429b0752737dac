"""Background commands: run_command with background: true, job_output and stop_job, on real
processes under the session's sandbox."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from tui_agent.sandbox import detect
from tui_agent.tools import ToolContext, builtin_registry
from tui_agent.tools.builtin.job_tools import job_text
from tui_agent.tools.jobs import READ_BYTES, JobTable, TailOutput

from .support.waiting import poll
from .tools_helpers import call, find_sleep, invalid, live_members, make_context, sleep_mark

REGISTRY = builtin_registry()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path, jobs=JobTable(), secret_values=("sk-secret-value-123456",))


async def start(ctx: ToolContext, command: str) -> int:
    arguments = {"command": command, "background": True}
    output = await call(REGISTRY, ctx, "run_command", json.dumps(arguments))
    assert not output.is_error, output.text
    assert output.text.startswith("started background job ")
    return int(output.text.split()[3])


async def read(ctx: ToolContext, job_id: int, wait_s: float = 0) -> str:
    arguments = {"job_id": job_id, "wait_s": wait_s}
    return (await call(REGISTRY, ctx, "job_output", json.dumps(arguments))).text


async def read_until(ctx: ToolContext, job_id: int, wanted: str) -> str:
    seen = ""
    for _ in range(50):
        seen += await read(ctx, job_id, wait_s=5)
        if wanted in seen:
            return seen
    raise AssertionError(f"{wanted!r} never came: {seen!r}")


async def test_a_job_starts_at_once_prints_and_is_stopped(ctx: ToolContext) -> None:
    mark = sleep_mark()
    job_id = await start(ctx, f"echo ready; sleep {mark}; echo never")
    assert job_id == 1
    assert await read_until(ctx, job_id, "ready\n")
    found = poll(lambda: find_sleep(mark), "the job's sleep")
    assert ctx.jobs is not None and ctx.jobs.get(job_id).running  # type: ignore[union-attr]
    stopped = await call(REGISTRY, ctx, "stop_job", json.dumps({"job_id": job_id}))
    assert stopped.text.startswith(f"[job {job_id}: stopped]")
    assert "never" not in stopped.text
    assert not live_members(found[1])
    again = await call(REGISTRY, ctx, "stop_job", json.dumps({"job_id": job_id}))
    assert "had ended already (stopped)" in again.text


async def test_reads_return_only_what_is_new_and_the_end(ctx: ToolContext) -> None:
    job_id = await start(ctx, "echo one; read x < /dev/null; echo two; exit 3")
    text = await read_until(ctx, job_id, "two")
    assert "one\n" in text
    job = ctx.jobs.get(job_id)  # type: ignore[union-attr]
    await job.ended.wait()  # type: ignore[union-attr]
    last = await read(ctx, job_id)
    assert last.startswith(f"[job {job_id}: exit code 3]")
    assert "(no new output)" in last and "one" not in last


async def test_output_is_bounded_redacted_and_made_visible(ctx: ToolContext) -> None:
    command = (
        "printf 'key sk-secret-value-123456\\n\\033[31mred\\033[0m bell\\007\\r\\n'; "
        f"head -c {3 * READ_BYTES} /dev/zero | tr '\\0' x; echo; echo tail-end"
    )
    job_id = await start(ctx, command)
    await ctx.jobs.get(job_id).ended.wait()  # type: ignore[union-attr]
    text = await read(ctx, job_id)
    assert "earlier bytes of new output skipped" in text
    assert text.startswith("[job 1: exit code 0]\n") and text.endswith("x\ntail-end\n")
    assert len(text) < READ_BYTES + 500
    assert job_text(b"key sk-secret-value-123456", ("sk-secret-value-123456",)).count("sk-") == 0
    shown = job_text(b"\x1b[31mred\x1b[0m bell\x07\r\n\x1b]0;title\x07", ())
    assert shown == "red bell\\x07\n"


def test_the_tail_keeps_the_newest_bytes() -> None:
    async def fill() -> tuple[tuple[bytes, int], tuple[bytes, int]]:
        tail = TailOutput(10, lambda: None)
        tail.data_received(b"0123456789")
        tail.data_received(b"abcdef")
        return tail.since(0, 100), tail.since(14, 100)

    everything, newest = asyncio.run(fill())
    assert everything == (b"6789abcdef", 6)
    assert newest == (b"ef", 0)


async def test_the_session_closing_stops_every_job(ctx: ToolContext) -> None:
    mark = sleep_mark()
    await start(ctx, f"sleep {mark}")
    await start(ctx, f"sleep {mark}")
    groups = poll(lambda: _sleeps(mark, 2), "both sleeps")
    assert ctx.jobs is not None
    await ctx.jobs.stop_all()
    assert all(not live_members(group) for group in groups)
    refused = await call(
        REGISTRY, ctx, "run_command", json.dumps({"command": "true", "background": True})
    )
    assert refused.is_error and "closing" in refused.text


async def test_running_jobs_are_limited(ctx: ToolContext) -> None:
    ctx = replace(ctx, jobs=JobTable(max_running=1))
    mark = sleep_mark()
    await start(ctx, f"sleep {mark}")
    refused = await call(
        REGISTRY, ctx, "run_command", json.dumps({"command": "true", "background": True})
    )
    assert refused.is_error and "stop one with stop_job" in refused.text
    assert ctx.jobs is not None
    await ctx.jobs.stop_all()


async def test_unknown_job_and_no_table(tmp_path: Path, ctx: ToolContext) -> None:
    missing = await call(REGISTRY, ctx, "job_output", json.dumps({"job_id": 9}))
    assert missing.is_error and "no background job 9" in missing.text
    bare = make_context(tmp_path)
    refused = await call(
        REGISTRY, bare, "run_command", json.dumps({"command": "true", "background": True})
    )
    assert refused.is_error and "not available" in refused.text
    assert "job_id" in invalid(REGISTRY, "job_output", json.dumps({"job_id": 0}))


def _sleeps(mark: str, count: int) -> list[int] | None:
    groups = []
    for entry in os.listdir("/proc"):
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if argv[:2] == [b"sleep", mark.encode()]:
            groups.append(int(stat[stat.rindex(")") + 2 :].split()[2]))
    return groups if len(groups) >= count else None


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from tui_agent.tools import ToolContext
    from tui_agent.tools.builtin.job_tools import start_job
    from tui_agent.tools.jobs import JobTable
    from tui_agent.tools.process_limits import install_exit_signals

    async def main():
        install_exit_signals()  # as the app's boot does
        ctx = ToolContext(workspace=Path(sys.argv[1]), jobs=JobTable())
        print((await start_job("sleep " + sys.argv[2], ctx)).text, flush=True)
        await asyncio.sleep(60)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("how", ["exit", "sigterm", "sigkill"])
@pytest.mark.heavy
def test_jobs_die_with_the_app(tmp_path: Path, how: str) -> None:
    if how == "sigkill" and not detect().namespaces:
        pytest.skip("only the sandbox's launcher dies with an app killed by SIGKILL")
    mark = sleep_mark()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(workspace), mark], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().startswith("started background job 1")
        found = poll(lambda: find_sleep(mark), "the job's sleep")
        signals = {"exit": signal.SIGINT, "sigterm": signal.SIGTERM, "sigkill": signal.SIGKILL}
        child.send_signal(signals[how])  # SIGINT: KeyboardInterrupt, the interpreter exits
        child.wait(timeout=20)
        poll(lambda: not live_members(found[1]), "the job to die with its app")
    finally:
        child.kill()
        child.wait()


async def test_a_job_that_ignores_sigterm_is_killed(ctx: ToolContext) -> None:
    mark = sleep_mark()
    job_id = await start(ctx, f"trap '' TERM; echo ready; sleep {mark}")
    await read_until(ctx, job_id, "ready")
    found = poll(lambda: find_sleep(mark), "the job's sleep")
    assert ctx.jobs is not None
    job = ctx.jobs.get(job_id)
    assert job is not None
    assert await ctx.jobs.stop(job, grace_s=0.2)
    assert job.state == "stopped"
    poll(lambda: not live_members(found[1]) and find_sleep(mark) is None, "the sleep killed")
