"""Stopping things in the real app: Esc mid-stream, Esc while a tool runs, a truncated turn
retried with Ctrl+R, and Ctrl+Q in the middle of a stream."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tui_agent.agent.calls import INTERRUPTED

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply, Reset, Stall
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    make_env,
    offset_of,
    prompt_text,
    running,
    send,
    sent_texts,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    return make_env(tmp_path, monkeypatch)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie is dead
    except FileNotFoundError:
        return True


async def test_esc_mid_text_leaves_no_assistant_turn_and_restores_the_message(
    env: AppEnv,
) -> None:
    ops = [("text", "The first half of an answer, "), ("text", "and the rest never comes.")]
    cut = offset_of(PROTOCOL, ops, "and the rest")
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops, faults=Stall(cut)))
        async with running(server, env) as (app, pilot):
            await send(pilot, "tell me something")
            await wait_text(pilot, "The first half of an answer")
            assert prompt_text(app) == ""
            await pilot.press("escape")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "your message is back in the input")
            assert prompt_text(app) == "tell me something"
            assert app.host is not None and app.host.agent.messages == []
            text = screen_text(app)
            assert "stopped: the turn was discarded and nothing of it ran" in text
        types = env.types()
        assert types == ["header", "user", "truncated", "withdraw"]
        truncated = env.records()[2]
        assert truncated["error"] == "cancelled by user"
        assert truncated["text"] == "The first half of an answer, "
        assert server.wait_connections(0, 5.0)  # the stream was closed, not left hanging


async def test_esc_while_a_command_runs_kills_it(env: AppEnv) -> None:
    command = "sleep 30 & echo $! > sleep.pid; wait"
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(("call_S", "run_command", {"command": command}))))
        async with running(server, env) as (app, pilot):
            await send(pilot, "sleep a while")
            await armed_prompt(pilot)
            await pilot.press("y")
            pid_file = env.workspace / "sleep.pid"
            await wait_for(pilot, lambda: pid_file.exists() and pid_file.read_text(), "the pid")
            pid = int(pid_file.read_text())
            (card,) = cards(app)
            await wait_for(pilot, lambda: card.state == "running", "the running card")
            assert "running: run_command" in screen_text(app)
            assert not _gone(pid)
            started = time.monotonic()
            await pilot.press("escape")
            await wait_idle_agent(pilot)
            await wait_for(pilot, lambda: _gone(pid), "the command to be killed", timeout=10.0)
            assert time.monotonic() - started < 10.0
            assert card.state == "interrupted"
            assert "interrupted: run_command" in screen_text(app)
            assert len(server.requests) == 1  # the loop waits for the user
        (result,) = [r for r in env.records() if r["type"] == "tool_result"]
        assert (result["status"], result["output"]) == ("interrupted", INTERRUPTED)
        assert _gone(pid)


async def test_a_truncated_turn_shows_a_notice_and_ctrl_r_retries_it(env: AppEnv) -> None:
    message = "write the report please"
    arguments = {"path": "report.md", "content": "# Report\n" * 20}
    ops = call_ops(("call_W", "write_file", arguments), text="I will write the report.")
    cut = offset_of(PROTOCOL, ops, "# Report")  # in the middle of the arguments
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops, faults=Reset(cut)), answer(PROTOCOL, "Second try worked."))
        async with running(server, env) as (app, pilot):
            await send(pilot, message)
            await wait_idle_agent(pilot)
            await wait_text(pilot, "press Ctrl+R to send the message again")
            text = screen_text(app)
            assert "pending calls not run: write_file" in text
            # The streamed text stays, struck through, under the reason it was discarded.
            assert "I will write the report." in text
            assert "⚠ Turn discarded, the stream ended before the provider finished" in text
            assert [card.state for card in cards(app)] == ["cancelled"]
            assert "write_file cancelled" in text  # the calls panel too
            assert not app.query("ApprovalPrompt")
            assert prompt_text(app) == ""  # a cut stream keeps the message: Ctrl+R resends it

            await pilot.press("ctrl+r")
            await wait_text(pilot, "Second try worked.")
            await wait_idle_agent(pilot)
            assert screen_text(app).count(message) == 1
        assert len(server.requests) == 2
        assert sent_texts(server, 1).count(message) == 1
        assert not (env.workspace / "report.md").exists()
        types = env.types()
        assert types.count("user") == 1
        assert types.index("truncated") < types.index("assistant")
        server.assert_all_consumed()


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
