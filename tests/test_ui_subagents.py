"""Subagents in the real app against the fake provider: the task call is asked, then the
subagent's own call on the same armed prompt, which names the subagent and its task; the
task's card shows the subagent (its agent, turns, calls and tokens) collapsed, and Enter opens
its calls."""

from __future__ import annotations

import dataclasses

import pytest

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.subagent_view import SubagentLine, SubagentView
from tui_agent.ui.widgets.tool_result import ResultSummary

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply
from .ui_app_helpers import (
    KEY,
    SIZE,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    make_app,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
TASK = {"description": "read the notes", "prompt": "Read notes.txt", "agent": "explore"}


@pytest.mark.heavy
async def test_a_subagents_call_is_approved_on_the_armed_prompt_with_its_agent_named(
    env: AppEnv,
) -> None:
    (env.workspace / "notes.txt").write_text("the word is plum\n")
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(("call_T", "task", TASK))),
            Reply(call_ops(("sub_R", "read_file", {"path": "notes.txt"}))),
            answer(PROTOCOL, "The notes say plum."),
            answer(PROTOCOL, "It is plum."),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "what do the notes say?")
            prompt = await armed_prompt(pilot)
            assert prompt.request.tool_name == "task" and prompt.request.origin == ""
            await pilot.press("y")
            await wait_for(
                pilot,
                lambda: any(p.request.origin for p in app.query("ApprovalPrompt")),
                "the subagent's question",
            )
            prompt = await armed_prompt(pilot)
            assert prompt.request.tool_name == "read_file"
            text = screen_text(app)
            assert "subagent explore · task: read the notes" in text
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "It is plum.")
            (card,) = cards(app)
            assert card.state == "done"
            view = card.query_one(SubagentView)
            shown = screen_text(app)
            assert "subagent explore" in shown and "1 call" in shown and "finished" in shown
            assert "done: read_file" not in shown  # collapsed: its calls not shown
            view.query_one(SubagentLine).focus()
            await pilot.press("enter")
            assert view.model.expanded
            await wait_text(pilot, "done: read_file")
            (nested,) = view.nested_calls()
            nested.query_one(ResultSummary).focus()  # the nested card's result opens too
            await pilot.press("enter")
            assert nested.call.expanded
            await wait_text(pilot, "the word is plum")
            session = app.host.writer.session_id if app.host else ""
        results = [r for r in env.records() if r["type"] == "tool_result"]
        assert [r["call_id"] for r in results] == ["call_T"]
        nested = [r for r in env.records() if r["type"] == "subagent"]
        assert {r["record"]["type"] for r in nested} >= {"user", "assistant", "tool_result"}
        # Resumed: the task's card shows its subagent again, from the records under it.
        resumed = dataclasses.replace(make_app(server, env).options, resume=session)
        async with TuiAgentApp(resumed).run_test(size=SIZE) as pilot:
            app = pilot.app
            assert isinstance(app, TuiAgentApp)
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            await wait_for(pilot, lambda: app.query(SubagentView), "the resumed subagent")
            view = app.query_one(SubagentView)
            assert view.model.agent == "explore" and view.model.turn == 2
            assert [(c.name, c.state) for c in view.model.calls] == [("read_file", "done")]
            assert view.model.step == "answered"
            await pilot.press("ctrl+q")


async def test_slash_agents_lists_explore_and_the_config_folders(env: AppEnv) -> None:
    folder = env.root / "config" / "tui-agent" / "agents"
    folder.mkdir(parents=True)
    (folder / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews.\ntools: Read, Grep\n---\nReview.\n"
    )
    (folder / "broken.md").write_text("no front matter\n")
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            await send(pilot, "/agents")
            await wait_text(pilot, "agents the task tool can start (2)")
            text = screen_text(app)
            assert "explore (built in)" in text and "reviewer (config folder)" in text
            assert "tools: read_file, search_text" in text
            assert "agents/broken.md is skipped" in text


def test_the_subagent_line_shows_hostile_text_inert() -> None:
    from tui_agent.ui.widgets.subagent_view import (
        SubagentCall,
        SubagentModel,
        call_text,
        subagent_text,
    )
    from tui_agent.ui.widgets.tool_card import STATES

    model = SubagentModel("explore\x1b[5m", step="running \x1b[2Jwipe", expanded=True)
    call = SubagentCall("c", "read\x1b]52;c;eA==\x07file", "done", "\u202e{}")
    text = subagent_text(model).plain + call_text(call, STATES).plain
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "done: read" in text
