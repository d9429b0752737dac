"""Approval by keypress in the real app: each key does what it says.

The fake provider announces the calls; the app shows the prompt; Pilot presses the key; what
ran is checked on disk and what the model was told in the next request the server received.
"""

from __future__ import annotations

import pytest

from .agent_helpers import sent_results
from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .support.clock import leap_until
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    running,
    send,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


def _write(call_id: str, name: str) -> tuple[str, str, dict[str, str]]:
    return (call_id, "write_file", {"path": name, "content": f"{name} body\n"})


def _keys(text: str) -> list[str]:
    return ["space" if char == " " else char for char in text]


async def test_y_approves_and_the_tool_runs(env: AppEnv) -> None:
    command = "echo hello from the tool > out.txt"
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(("call_R", "run_command", {"command": command}))),
            answer(PROTOCOL, "It ran.", expect=ExpectToolResults({"call_R": "exit code 0"})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "run it")
            prompt = await armed_prompt(pilot)
            text = screen_text(app)
            assert "call 1 of 1" in text and "execute" in text and command in text
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "It ran.")
            assert prompt.decision is not None and prompt.decision.kind == "approve"
            assert not app.query("ApprovalPrompt")
            assert [card.state for card in cards(app)] == ["done"]
            assert "done: run_command" in screen_text(app)
        assert (env.workspace / "out.txt").read_text() == "hello from the tool\n"
        server.assert_all_consumed()


async def test_n_denies_and_the_model_is_told(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(_write("call_W", "a.txt"))),
            answer(PROTOCOL, "OK.", expect=ExpectToolResults({"call_W": "denied by user"})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write a.txt")
            await armed_prompt(pilot)
            await pilot.press("n")
            await wait_idle_agent(pilot)
            assert [card.state for card in cards(app)] == ["denied"]
            assert "denied: write_file" in screen_text(app)
        assert not (env.workspace / "a.txt").exists()
        assert sent_results(PROTOCOL, server.requests[1].json) == {"call_W": "denied by user"}
        server.assert_all_consumed()


async def test_r_denies_with_the_reason_typed(env: AppEnv) -> None:
    reason = "not in this folder"
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(_write("call_W", "a.txt"))), answer(PROTOCOL, "OK."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "write a.txt")
            prompt = await armed_prompt(pilot)
            await pilot.press("r")
            assert prompt.mode == "reason"
            # The reason field arms as the prompt does: keys right after it opened decide nothing.
            await leap_until(pilot, lambda: prompt.armed, "the reason field to arm")
            await pilot.press(*_keys(reason), "enter")
            await wait_idle_agent(pilot)
            assert reason in screen_text(app)
        assert not (env.workspace / "a.txt").exists()
        told = sent_results(PROTOCOL, server.requests[1].json)
        assert told == {"call_W": f"denied by user: {reason}"}
        server.assert_all_consumed()


async def test_capital_a_approves_the_rest_of_the_turn(env: AppEnv) -> None:
    calls = [_write("call_1", "a.txt"), _write("call_2", "b.txt"), _write("call_3", "c.txt")]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        expect = ExpectToolResults({"call_1": None, "call_2": None, "call_3": None})
        server.script(Reply(call_ops(*calls)), answer(PROTOCOL, "All three.", expect=expect))
        async with running(server, env) as (app, pilot):
            await send(pilot, "write three files")
            prompt = await armed_prompt(pilot)
            assert "call 1 of 3" in screen_text(app)
            assert "approve the rest of this turn" in screen_text(app)
            await pilot.press("A")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "All three.")
            assert prompt.decision is not None and prompt.decision.approve_rest
            assert [card.state for card in cards(app)] == ["done", "done", "done"]
        for name in ("a.txt", "b.txt", "c.txt"):
            assert (env.workspace / name).read_text() == f"{name} body\n"
        decisions = [r for r in env.records() if r["type"] == "decision"]
        assert [(d["decision"], d["by"]) for d in decisions] == [("approve", "user")] * 3
        server.assert_all_consumed()


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_esc_in_the_prompt_cancels_the_turn(env: AppEnv, key: str) -> None:
    calls = [_write("call_1", "a.txt"), ("call_2", "run_command", {"command": "touch b.txt"})]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(*calls)), answer(PROTOCOL, "Understood."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "two things")
            await armed_prompt(pilot)
            await pilot.press(key)
            await wait_idle_agent(pilot)
            await wait_text(pilot, "cancelled by user: the model was not sent the results")
            assert [card.state for card in cards(app)] == ["cancelled", "cancelled"]
            assert not app.query("ApprovalPrompt")
            assert len(server.requests) == 1  # the loop waits for the user
            results = {r["call_id"]: r for r in env.records() if r["type"] == "tool_result"}
            assert {k: (r["output"], r["status"]) for k, r in results.items()} == {
                "call_1": ("cancelled by user", "cancelled"),
                "call_2": ("cancelled by user", "cancelled"),
            }
            await send(pilot, "never mind")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Understood.")
        assert not (env.workspace / "a.txt").exists()
        assert not (env.workspace / "b.txt").exists()
        told = sent_results(PROTOCOL, server.requests[1].json)
        assert told == {"call_1": "cancelled by user", "call_2": "cancelled by user"}
        server.assert_all_consumed()
