"""run_command and the process-group machinery: real processes, real signals, no mocks."""

from __future__ import annotations

import asyncio
import json
import os
import time
import tracemalloc
from pathlib import Path

import pytest

from tui_agent.tools import ToolContext, builtin_registry
from tui_agent.tools.environment import looks_secret, scrubbed_environment
from tui_agent.tools.process import DEFAULT_GRACE_S

from .tools_helpers import call, invalid, live_members, make_context, validated

REGISTRY = builtin_registry()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path, command_timeout_s=20.0)


async def run(ctx: ToolContext, command: str, timeout_s: float | None = None) -> tuple[str, bool]:
    arguments: dict[str, object] = {"command": command}
    if timeout_s is not None:
        arguments["timeout_s"] = timeout_s
    output = await call(REGISTRY, ctx, "run_command", json.dumps(arguments))
    return output.text, output.is_error


async def wait_for_file(path: Path, timeout_s: float = 5.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path.name} never appeared")


async def wait_for_members(pgid: int, count: int, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while len(live_members(pgid)) < count:
        assert time.monotonic() < deadline, "the children never started"
        await asyncio.sleep(0.02)


async def test_output_exit_code_and_workspace_cwd(ctx: ToolContext) -> None:
    (ctx.workspace / "marker.txt").write_text("here\n")
    text, is_error = await run(ctx, "cat marker.txt; echo oops >&2; exit 0")
    assert text == "here\noops\n[exit code 0]"
    assert not is_error


async def test_nonzero_exit_is_an_error_result(ctx: ToolContext) -> None:
    text, is_error = await run(ctx, "echo failing; exit 3")
    assert text.endswith("[exit code 3]")
    assert is_error


async def test_stdin_is_empty_not_the_terminal(ctx: ToolContext) -> None:
    text, _ = await run(ctx, "cat; echo done")
    assert text == "done\n[exit code 0]"


async def test_secret_looking_variables_are_not_passed(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "FAKE_API_KEY": "k1",
        "OPENAI_API_KEY": "k2",
        "ANTHROPIC_API_KEY": "k3",
        "GEMINI_API_KEY": "k4",
        "GOOGLE_API_KEY": "k5",
        "GITHUB_TOKEN": "t1",
        "AWS_SECRET_ACCESS_KEY": "s1",
        "CLIENT_SECRET": "s2",
        "DB_PASSWORD": "p1",
        "mysql_password_file": "p2",
        "GOOGLE_APPLICATION_CREDENTIALS": "c1",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    text, _ = await run(ctx, "env")
    names = {line.split("=", 1)[0] for line in text.splitlines() if "=" in line}
    assert not names & set(secrets)
    assert "HARMLESS_SETTING" in names
    assert "PATH" in names


def test_secret_name_rules() -> None:
    for name in ["MY_KEY", "x_token", "API_KEY", "OPENAI_API_KEY", "SOME_CREDENTIALS", "PASSWORD"]:
        assert looks_secret(name), name
    for name in [
        "PATH",
        "HOME",
        "KEYBOARD_LAYOUT",
        "TERM",
        "LANG",
        "MONKEY",
        "TOKENIZERS_PARALLEL",
    ]:
        assert not looks_secret(name), name
    assert scrubbed_environment({"A_KEY": "x", "B": "y"}) == {"B": "y"}


async def test_huge_output_is_capped_in_bounded_memory(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, command_output_cap=100_000)
    tracemalloc.start()
    started = time.monotonic()
    try:
        text, _ = await run(ctx, "yes | head -c 100000000")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 15
    assert text.startswith("y\ny\n")
    assert "[output truncated: kept the first 100,000 bytes, dropped 99,900,000]" in text
    assert text.endswith("[exit code 0]")
    assert peak < 10_000_000, f"peak Python memory {peak:,} bytes"


async def test_binary_output_is_made_readable(ctx: ToolContext) -> None:
    text, _ = await run(ctx, r"printf 'a\000b\377c\n'")
    assert text == "ab\ufffdc\n[exit code 0]"


async def test_timeout_stops_the_command_promptly(ctx: ToolContext) -> None:
    started = time.monotonic()
    text, is_error = await run(ctx, "echo $$; sleep 30", timeout_s=0.5)
    elapsed = time.monotonic() - started
    assert elapsed < 0.5 + DEFAULT_GRACE_S, elapsed
    assert is_error
    assert "[timed out after 0.5 s" in text
    assert live_members(int(text.split()[0])) == []


async def test_requested_timeout_is_capped_by_the_user_limit(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, command_timeout_s=0.5)
    started = time.monotonic()
    text, _ = await run(ctx, "sleep 30", timeout_s=100)
    assert time.monotonic() - started < 0.5 + DEFAULT_GRACE_S
    assert "timeout_s 100 was capped at the limit of 0.5 s" in text
    assert "[timed out after 0.5 s" in text


async def test_command_ignoring_sigterm_is_killed_after_the_grace(ctx: ToolContext) -> None:
    started = time.monotonic()
    text, is_error = await run(ctx, "trap '' TERM; echo $$; sleep 30", timeout_s=0.5)
    elapsed = time.monotonic() - started
    assert 0.5 + DEFAULT_GRACE_S - 0.2 < elapsed < 0.5 + DEFAULT_GRACE_S + 2, elapsed
    assert is_error and "timed out" in text
    assert live_members(int(text.split()[0])) == []


async def test_timeout_kills_every_child_of_the_command(ctx: ToolContext) -> None:
    command = "echo $$; for i in $(seq 50); do sleep 30 & done; wait"
    text, _ = await run(ctx, command, timeout_s=1.0)
    assert "timed out" in text
    assert live_members(int(text.split()[0])) == []


async def test_cancellation_kills_the_group_and_propagates(ctx: ToolContext) -> None:
    pid_file = ctx.workspace / "pid.txt"
    command = "echo $$ > pid.txt; for i in $(seq 50); do sleep 30 & done; wait"
    checked = validated(REGISTRY, "run_command", f'{{"command": "{command}"}}')
    task = asyncio.create_task(checked.spec.run(checked.args, ctx))
    pgid = int(await wait_for_file(pid_file))
    await wait_for_members(pgid, 51)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < DEFAULT_GRACE_S + 1
    assert live_members(pgid) == []


async def test_background_leftovers_are_stopped_when_the_command_ends(ctx: ToolContext) -> None:
    started = time.monotonic()
    text, is_error = await run(ctx, "echo $$; sleep 30 & echo started")
    assert time.monotonic() - started < 3
    assert "started\n[exit code 0]" in text
    assert "background were stopped" in text
    assert not is_error
    assert live_members(int(text.split()[0])) == []


def test_nul_in_a_command_is_refused_before_it_runs() -> None:
    error = invalid(REGISTRY, "run_command", '{"command": "echo a\\u0000b"}')
    assert error == "invalid arguments for run_command: command: must not contain a NUL character"


async def test_missing_shell_command_reports_exit_127(ctx: ToolContext) -> None:
    text, is_error = await run(ctx, "definitely-not-a-command-xyz")
    assert is_error
    assert text.endswith("[exit code 127]")


async def test_a_child_that_escapes_the_group_does_not_hold_up_the_result(
    ctx: ToolContext,
) -> None:
    # setsid moves the child to a new session with our output pipe still open: we cannot kill
    # it (only a cgroup could), but we must not wait for it either.
    command = "setsid sh -c 'echo $$ > escaped.txt; exec sleep 30' & echo started"
    started = time.monotonic()
    text, _ = await run(ctx, command)
    escaped_pid = int(await wait_for_file(ctx.workspace / "escaped.txt"))
    try:
        assert time.monotonic() - started < 3
        assert "started" in text
    finally:
        os.kill(escaped_pid, 9)
