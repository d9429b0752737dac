"""Stopping things in the real app: Esc while a tool runs, and Ctrl+Q in the middle of a stream.
(Esc mid-stream and a truncated turn retried with Ctrl+R: tests/hostile/test_network_stream.py.)"""

from __future__ import annotations

import pytest

from tui_agent.agent.call_results import INTERRUPTED

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply, Stall
from .run_helpers import alive
from .tools_helpers import find_sleep, sleep_mark
from .ui_app_helpers import (
    KEY,
    AppEnv,
    armed_prompt,
    call_ops,
    cards,
    offset_of,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


@pytest.mark.heavy
async def test_esc_while_a_command_runs_kills_it(env: AppEnv) -> None:
    mark = sleep_mark()  # in the command's PID namespace $! is not a PID we can look up
    command = f"sleep {mark} & echo started > sleep.pid; wait"
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(("call_S", "run_command", {"command": command}))))
        async with running(server, env) as (app, pilot):
            await send(pilot, "sleep a while")
            await armed_prompt(pilot)
            await pilot.press("y")
            pid_file = env.workspace / "sleep.pid"
            await wait_for(pilot, lambda: pid_file.exists() and pid_file.read_text(), "the pid")
            await wait_for(pilot, lambda: find_sleep(mark) is not None, "the sleep")
            found = find_sleep(mark)
            assert found is not None
            pid = found[0]
            (card,) = cards(app)
            await wait_for(pilot, lambda: card.state == "running", "the running card")
            assert "running: run_command" in screen_text(app)
            assert alive(pid)
            await pilot.press("escape")
            # Both bounded far below the sleep's 30 s: a command waited out fails them.
            await wait_idle_agent(pilot)
            await wait_for(pilot, lambda: not alive(pid), "the command to be killed")
            assert card.state == "interrupted"
            assert "interrupted: run_command" in screen_text(app)
            assert len(server.requests) == 1  # the loop waits for the user
        (result,) = [r for r in env.records() if r["type"] == "tool_result"]
        assert (result["status"], result["output"]) == ("interrupted", INTERRUPTED)
        assert not alive(pid)


async def test_ctrl_q_in_the_middle_of_a_stream_quits_cleanly(env: AppEnv) -> None:
    ops = [("text", "Streaming... "), ("text", "never finished")]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops, faults=Stall(offset_of(PROTOCOL, ops, "never"))))
        async with running(server, env) as (app, pilot):
            await send(pilot, "go")
            await wait_text(pilot, "Streaming...")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running, "the app to exit", timeout=10.0)
        assert server.wait_connections(0, 5.0)
        assert "assistant" not in env.types()
