"""run_command and the process-group machinery: real processes, real signals, no mocks.
The hostile cases (floods, fork loops, SIGTERM, 50 children, env): tests/hostile/."""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tui_agent.sandbox import SandboxMode, SandboxPolicy
from tui_agent.tools import ToolContext, builtin_registry
from tui_agent.tools.environment import looks_secret, scrubbed_environment

from .support.waiting import ends
from .tools_helpers import call, invalid, live_members, make_context

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


def test_secret_name_rules() -> None:
    secret = ["MY_KEY", "x_token", "API_KEY", "OPENAI_API_KEY", "SOME_CREDENTIALS", "PASSWORD"]
    for name in [*secret, "MYSQL_PWD", "GPG_PASSPHRASE"]:
        assert looks_secret(name), name
    for name in [
        "PATH",
        "HOME",
        "KEYBOARD_LAYOUT",
        "TERM",
        "LANG",
        "MONKEY",
        "TOKENIZERS_PARALLEL",
        "PWD",
        "OLDPWD",
    ]:
        assert not looks_secret(name), name
    assert scrubbed_environment({"A_KEY": "x", "B": "y"}) == {"B": "y"}
    held = {"LLM": "k-123", "URL": "https://u:k-123@h", "B": "y"}
    assert scrubbed_environment(held, secret_values=("k-123", "")) == {"B": "y"}


async def test_timeout_stops_the_command_promptly(ctx: ToolContext) -> None:
    # Bounded well below the sleep: a call that waited for the command would still be running.
    text, is_error = await ends(run(ctx, "echo $$; sleep 30", timeout_s=0.5), "the timed-out call")
    assert is_error
    assert "[timed out after 0.5 s" in text
    assert live_members(int(text.split()[0])) == []


async def test_requested_timeout_is_capped_by_the_user_limit(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, command_timeout_s=0.5)
    text, _ = await ends(run(ctx, "sleep 30", timeout_s=100), "the capped call")
    assert "timeout_s 100 was capped at the limit of 0.5 s" in text
    assert "[timed out after 0.5 s" in text


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
    # Unconfined (sandbox off), setsid moves the child to a new session with our output pipe
    # still open: we cannot kill it, but we must not wait for it either. (Under the sandbox it
    # dies with the call's PID namespace: tests/hostile/test_sandbox_confinement.py.)
    ctx = replace(ctx, sandbox=SandboxPolicy(mode=SandboxMode.OFF))
    command = "setsid sh -c 'echo $$ > escaped.txt; exec sleep 30' & echo started"
    try:
        # The escaped child keeps the pipe open for 30 s: a call waiting for it is still running.
        text, _ = await ends(run(ctx, command), "the call with an escaped child")
    finally:
        escaped_pid = int(await wait_for_file(ctx.workspace / "escaped.txt"))
    try:
        assert "started" in text
    finally:
        os.kill(escaped_pid, 9)
