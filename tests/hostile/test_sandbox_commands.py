"""Execution sandbox, commands: run_command under hostile programs, with real processes.

100 MB of output, binary output, a (bounded) fork loop, a command that ignores SIGTERM and one
that spawns 50 children: capped, timed out, the whole process group killed, and the event loop
serving all along. `env` shows no secret-looking variable and never the provider's key.

Each test puts a marker variable in the environment the command inherits, so scanning
/proc/*/environ finds every process the command started, whichever group it ended up in.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tui_agent.tools import ToolContext, ToolOutput, builtin_registry
from tui_agent.tools.process import DEFAULT_GRACE_S

from ..fake_provider import ExpectToolResults, FakeProvider, Reply
from ..fake_provider.checks import tool_results
from ..run_helpers import KEY, Home, final
from ..support.waiting import ends, poll
from ..tools_helpers import call, live_members, validated
from .processes import running_with

REGISTRY = builtin_registry()


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    yield ToolContext(workspace=workspace.resolve(), command_timeout_s=20.0)


async def run(ctx: ToolContext, command: str, timeout_s: float | None = None) -> ToolOutput:
    arguments: dict[str, object] = {"command": command}
    if timeout_s is not None:
        arguments["timeout_s"] = timeout_s
    return await call(REGISTRY, ctx, "run_command", json.dumps(arguments))


# 50 MB of output, then a flood that goes on until the test, from the event loop, lets it stop:
# a read that held the loop for the whole flood would never let it (the command gives up after
# 60 s and says so), so the flood's end proves the loop served while the output poured in.
FLOOD_UNTIL_RELEASED = (
    "yes | head -c 50000000; touch flooding; end=$(($(date +%s) + 60)); "
    "while [ ! -e released ] && [ $(date +%s) -lt $end ]; do head -c 1000000 /dev/zero; done; "
    "[ -e released ] && echo released > seen.txt"
)


async def test_output_of_100_mb_is_capped_in_bounded_memory_and_the_loop_keeps_serving(
    tmp_path: Path,
) -> None:
    ctx = ToolContext(workspace=tmp_path, command_output_cap=100_000)

    async def release() -> None:
        while not (tmp_path / "flooding").exists():
            await asyncio.sleep(0.02)
        (tmp_path / "released").touch()

    releasing = asyncio.create_task(release())
    tracemalloc.start()
    try:
        output = await run(ctx, FLOOD_UNTIL_RELEASED)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        releasing.cancel()
    assert (tmp_path / "seen.txt").exists(), "the loop never served during the flood"
    assert output.text.startswith("y\ny\n")
    # The model is told it was capped, and by how much.
    assert "[output truncated: kept the first 100,000 bytes, dropped " in output.text
    assert output.text.endswith("[exit code 0]")
    assert peak < 10_000_000, f"peak Python memory {peak:,} bytes for 50+ MB of output"


async def test_binary_output_is_made_readable(ctx: ToolContext) -> None:
    exact = await run(ctx, r"printf 'a\000b\377c\033[2J\n'")
    assert exact.text == "ab\ufffdc\x1b[2J\n[exit code 0]"  # the UI's sanitizer shows \x1b
    noise = await run(ctx, "head -c 3000000 /dev/urandom")
    assert "\0" not in noise.text
    assert noise.text.encode("utf-8")  # valid text, whatever the bytes were
    assert "[output truncated: kept the first 1,000,000 bytes, dropped 2,000,000]" in noise.text


async def test_a_fork_loop_is_timed_out_and_every_process_of_it_killed(
    ctx: ToolContext, marker: str
) -> None:
    # A fork bomb bounded by the test: depth 5, at most 63 shells (each with a sleep child),
    # every one ignoring SIGTERM, so only the SIGKILL to the whole group ends them.
    command = (
        "echo $$; trap '' TERM; "
        "bomb() { if [ $1 -lt 5 ]; then bomb $(($1+1)) & bomb $(($1+1)) & fi; "
        "while :; do sleep 0.2; done; }; bomb 0"
    )
    most = 0

    async def count() -> None:
        nonlocal most
        while True:
            most = max(most, len(running_with(marker)))
            await asyncio.sleep(0.05)

    counting = asyncio.create_task(count())
    try:
        output = await run(ctx, command, timeout_s=1.5)
    finally:
        counting.cancel()
    # Counted on the event loop while the command ran (after it, none is left): it served.
    assert most >= 63, f"the fork loop only reached {most} processes"
    assert (
        "[timed out after 1.5 s; the command and its child processes were stopped]" in output.text
    )
    assert output.is_error
    assert live_members(int(output.text.split()[0])) == []
    assert running_with(marker) == []


# Survives SIGTERM (each sleep dies of it, the shell says so and goes on): only SIGKILL ends it.
SURVIVES_TERM = "trap 'echo got TERM' TERM; echo $$; while :; do sleep 0.05; done"


async def test_a_command_that_ignores_sigterm_is_killed_after_the_grace(
    ctx: ToolContext, marker: str
) -> None:
    started = time.monotonic()
    output = await ends(run(ctx, SURVIVES_TERM, timeout_s=0.5), "the call that ignores SIGTERM")
    # Never early (a slow machine only makes it later): the grace was given whole.
    assert time.monotonic() - started > 0.5 + DEFAULT_GRACE_S - 0.2
    assert output.is_error and "timed out after 0.5 s" in output.text
    assert "got TERM" in output.text  # SIGTERM first, and what it printed then is kept
    assert live_members(int(output.text.split()[0])) == []
    assert running_with(marker) == []


FIFTY = "for i in $(seq 50); do sleep 30 & done"


async def test_a_command_that_spawns_50_children_is_timed_out_with_all_of_them(
    ctx: ToolContext,
    marker: str,
) -> None:
    output = await run(ctx, f"echo $$; {FIFTY}; wait", timeout_s=1.0)
    assert "timed out after 1 s" in output.text
    assert live_members(int(output.text.split()[0])) == []
    assert running_with(marker) == []


async def test_50_children_left_in_the_background_are_stopped_when_the_command_ends(
    ctx: ToolContext,
    marker: str,
) -> None:
    # Bounded below the children's 30 s: a call that waited for them would still be running.
    output = await ends(run(ctx, f"echo $$; {FIFTY}; echo started"), "the call")
    assert "started\n[exit code 0]" in output.text
    assert "background were stopped" in output.text
    assert running_with(marker) == []


async def test_cancelling_a_command_with_50_children_kills_them_all(
    ctx: ToolContext, marker: str
) -> None:
    command = f"{FIFTY}; wait"
    checked = validated(REGISTRY, "run_command", json.dumps({"command": command}))
    task = asyncio.create_task(checked.spec.run(checked.args, ctx))
    await asyncio.to_thread(poll, lambda: len(running_with(marker)) >= 51, "the children")
    task.cancel()
    await ends(asyncio.wait({task}), "the cancelled call")  # the children sleep 30 s
    assert task.cancelled()
    assert running_with(marker) == []


SECRETS = {
    "FOO_API_KEY": "value-foo-api-key-1",
    "OPENAI_API_KEY": "sk-proj-value-openai-2",
    "ANTHROPIC_API_KEY": "sk-ant-value-anthropic-3",
    "GEMINI_API_KEY": "value-gemini-4",
    "GOOGLE_API_KEY": "AIzaValueGoogle5",
    "GITHUB_TOKEN": "ghp_value_github_6",
    "SERVICE_TOKEN": "value-service-token-7",
    "APP_SECRET": "value-app-secret-8",
    "CLIENT_SECRET_VALUE": "value-client-secret-9",
    "PASSWORD": "value-password-10",
    "DB_PASSWORD": "value-db-password-11",
    "PGPASSWORD": "value-pg-12",
    "MYSQL_PWD": "value-mysql-13",
    "GPG_PASSPHRASE": "value-gpg-14",
    "AWS_SECRET_ACCESS_KEY": "value-aws-secret-15",
    "AWS_ACCESS_KEY_ID": "AKIAVALUEAWS16",
    "AWS_SESSION_TOKEN": "value-aws-session-17",
    "GOOGLE_APPLICATION_CREDENTIALS": "/value/creds-18.json",
    "HF_TOKEN": "value-hf-19",
    "NPM_AUTH_TOKEN": "value-npm-20",
    "GH_PAT": "value-gh-pat-21",
    "openai_api_key": "value-lowercase-22",
    "SSH_PRIVATE_KEY": "value-ssh-23",
}


async def test_env_in_run_command_shows_no_secret_looking_variable(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    output = await run(ctx, "env")
    leaked = [n for n in SECRETS if n in output.text] + [
        v for v in SECRETS.values() if v in output.text
    ]
    assert leaked == []
    names = {line.split("=", 1)[0] for line in output.text.splitlines() if "=" in line}
    assert {"HARMLESS_SETTING", "PATH"} <= names


async def test_env_never_shows_the_provider_key_whatever_its_variable_is_called(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A profile may read its key from any variable (api_key_env = "MYLLM"); the tools' context
    carries the key's value, and no variable holding it reaches the command."""
    key = "sk-or-v1-provider-key-value-0123456789"
    monkeypatch.setenv("MYLLM", key)
    monkeypatch.setenv("ENDPOINT_URL", f"https://user:{key}@llm.invalid/v1")
    ctx = ToolContext(workspace=tmp_path, secret_values=(key,))
    output = await run(ctx, "env; echo done")
    assert key not in output.text
    assert "MYLLM" not in output.text and "ENDPOINT_URL" not in output.text
    assert "done" in output.text


def test_tui_agent_run_hides_the_provider_key_from_env_whatever_its_variable(
    tmp_path: Path,
) -> None:
    """End to end: the key comes from an innocent-looking variable (--api-key-env MYLLM); the
    model runs `env`; what the provider receives back holds neither the key nor its name."""
    home = Home(tmp_path)
    call_ops = [
        ("call", 0, "call_env", "run_command"),
        ("args", 0, json.dumps({"command": "env; echo done"})),
        ("close", 0),
    ]
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(call_ops, stop="tool_calls"),
            final(server.protocol, "ok", ExpectToolResults({"call_env": "done"})),
        )
        argv = home.argv(server, "show the environment", approve="all")
        argv[argv.index("--api-key-env") + 1] = "MYLLM"
        env = {**home.env(key=None), "MYLLM": KEY}
        done = subprocess.run(
            argv, cwd=home.workspace, env=env, capture_output=True, text=True, timeout=30
        )
        server.assert_all_consumed()
        sent = tool_results(server.protocol, server.requests[-1].json)["call_env"]
    assert done.returncode == 0, done.stderr
    assert "done" in sent and "PATH=" in sent
    assert KEY not in sent
    assert "MYLLM" not in sent
