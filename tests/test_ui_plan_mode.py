"""Plan mode in the real app against the fake provider: /plan and F3 reach it, the status line
says PLAN, each request offers only the read-risk tools and says the model is planning, a read
call runs without a question, a write call the model makes anyway is refused (never asked,
never run) with a message that says plan mode is on, and /plan again restores the mode."""

from __future__ import annotations

from typing import Any

import pytest

from tui_agent.approval.plan import PLAN_PROMPT, PLAN_REFUSAL

from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    call_ops,
    cards,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
# job_output, stop_job: the background jobs' own; task: explore is read-only
READ_TOOLS = ["job_output", "list_dir", "read_file", "search_text", "stop_job", "task"]


def offered(request: dict[str, Any]) -> list[str]:
    return sorted(tool["function"]["name"] for tool in request.get("tools", []))


def system(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


@pytest.mark.heavy
async def test_plan_mode_offers_reads_only_and_refuses_a_write(env: AppEnv) -> None:
    (env.workspace / "notes.txt").write_text("the notes\n")
    calls = call_ops(
        ("call_R", "read_file", {"path": "notes.txt"}),
        ("call_W", "write_file", {"path": "new.txt", "content": "written anyway\n"}),
    )
    results = ExpectToolResults({"call_R": "the notes", "call_W": "plan mode is on"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(calls),
            answer(PROTOCOL, "The plan: 1. write new.txt", expect=results),
            answer(PROTOCOL, "Acting now."),
        )
        async with running(server, env) as (app, pilot):
            assert app.host is not None
            await send(pilot, "/plan")
            await wait_text(pilot, "approval: PLAN")
            assert str(app.host.policy.mode) == "plan"

            await send(pilot, "make a plan")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "The plan: 1. write new.txt")
            assert not app.query("ApprovalPrompt")  # neither call asked
            assert [card.state for card in cards(app)] == ["done", "denied"]
            first, second = server.requests[0].json, server.requests[1].json
            assert offered(first) == offered(second) == READ_TOOLS
            assert PLAN_PROMPT in system(first)
            refused = [m for m in second["messages"] if m.get("tool_call_id") == "call_W"]
            assert PLAN_REFUSAL in refused[0]["content"]
            assert not (env.workspace / "new.txt").exists()

            await send(pilot, "/plan")  # off again: back to ask, every tool offered
            await wait_text(pilot, "approval: ask")
            await send(pilot, "go ahead")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Acting now.")
            third = server.requests[2].json
            assert "write_file" in offered(third) and "run_command" in offered(third)
            assert PLAN_PROMPT not in system(third)
        decisions = {r["call_id"]: r for r in env.records() if r["type"] == "decision"}
        assert (decisions["call_W"]["decision"], decisions["call_W"]["by"]) == ("refused", "policy")
        assert PLAN_REFUSAL in decisions["call_W"]["reason"]
        assert decisions["call_R"]["decision"] == "approve"
        assert "call_W" not in {r["call_id"] for r in env.records() if r["type"] == "tool_start"}


async def test_f3_reaches_plan_mode_first_and_the_status_line_shows_it(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            assert app.host is not None
            await pilot.press("f3")
            await wait_text(pilot, "approval: PLAN")
            assert str(app.host.policy.mode) == "plan"
            await pilot.press("f3")
            await wait_for(pilot, lambda: str(app.host.policy.mode) == "auto-read", "auto-read")
            assert "PLAN" not in screen_text(app)
