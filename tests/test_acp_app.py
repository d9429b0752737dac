"""`tui-agent --agent NAME` in the real app under Pilot, with a real ACP agent process (the
scripted agent on the official SDK, tests/acp_agents/scripted_agent.py): its permission request
is answered on the same armed ApprovalPrompt (a key typed before it armed decides nothing), its
call is the same card, Esc mid-stream sends session/cancel and keeps no assistant turn."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tui_agent.ui.acp_app import AcpApp
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.wiring.host_options import HostOptions

from .approval_prompt_app import screen_text
from .ui_app_helpers import SIZE, AppEnv, send, wait_for, wait_text

SCRIPTED = [
    sys.executable,
    str(Path(__file__).resolve().parent / "acp_agents" / "scripted_agent.py"),
]


def _app(env: AppEnv) -> AcpApp:
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(f"[agents.scripted]\ncommand = {json.dumps(SCRIPTED)}\n")
    return AcpApp(HostOptions(workspace=str(env.workspace)), "scripted")


async def test_the_agents_permission_request_is_answered_on_the_armed_prompt(
    env: AppEnv,
) -> None:
    app = _app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.acp is not None, "the agent to start")
        await send(pilot, "write a.txt from the agent")
        await wait_for(pilot, lambda: app.query(ApprovalPrompt), "the approval prompt")
        prompt = app.query_one(ApprovalPrompt)
        assert not prompt.armed
        await pilot.press("y")  # typing, before the prompt armed: decides nothing
        assert prompt.decision is None
        await wait_for(pilot, lambda: prompt.armed, "the prompt to arm")
        text = screen_text(app)
        assert "Write a.txt" in text and "Scripted Agent says" in text
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy, "the prompt to end")
        await wait_text(pilot, "Wrote a.txt.")
        assert prompt.decision is not None and prompt.decision.kind == "approve"
        assert [card.state for card in app.query(ToolCallCard)] == ["done"]
        assert (env.workspace / "a.txt").read_text() == "from the agent"
        assert app.query_one(PromptInput).text == "y"  # the early key went to the message box
    records = env.records()
    decisions = [r for r in records if r["type"] == "decision"]
    assert [(d["decision"], d["by"]) for d in decisions] == [("approve", "user")]


async def test_n_on_the_prompt_rejects_the_agents_call(env: AppEnv) -> None:
    app = _app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.acp is not None, "the agent to start")
        await send(pilot, "write b.txt no")
        await wait_for(pilot, lambda: app.query(ApprovalPrompt), "the approval prompt")
        prompt = app.query_one(ApprovalPrompt)
        await wait_for(pilot, lambda: prompt.armed, "the prompt to arm")
        await pilot.press("n")
        await wait_for(pilot, lambda: not app.busy, "the prompt to end")
        await wait_text(pilot, "Not written")
        assert [card.state for card in app.query(ToolCallCard)] == ["denied"]
    assert not (env.workspace / "b.txt").exists()


async def test_esc_mid_stream_cancels_the_agents_prompt(env: AppEnv) -> None:
    app = _app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.acp is not None, "the agent to start")
        await send(pilot, "stream")
        await wait_text(pilot, "Plan  0/2 done")
        await wait_text(pilot, "3 ")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy, "the cancelled prompt to end")
        await wait_text(pilot, "stopped")
    kinds = [r["type"] for r in env.records()]
    assert "assistant" not in kinds and "truncated" in kinds


async def test_a_saved_agent_session_is_shown_and_resumed(env: AppEnv) -> None:
    from tui_agent.cli import _agent_of_session

    app = _app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.acp is not None, "the agent to start")
        await send(pilot, "hello agent")
        await wait_text(pilot, "you said: hello agent")
        await wait_for(pilot, lambda: not app.busy, "the prompt to end")
        assert app.acp is not None
        session = app.acp.writer.session_id
    assert _agent_of_session(session, str(env.data / "tui-agent")) == "scripted"
    again = AcpApp(HostOptions(workspace=str(env.workspace), resume=session), "scripted")
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: again.acp is not None, "the agent to start")
        await wait_text(pilot, "you said: hello agent")  # the saved conversation, shown
        await wait_text(pilot, "resumed its session")  # and the agent's own, loaded


async def test_the_agents_slash_commands_are_offered_in_the_list(env: AppEnv) -> None:
    from tui_agent.ui.widgets.completion_list import CompletionList

    app = _app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.acp is not None, "the agent to start")
        session = app.acp.session if app.acp is not None else None
        await wait_for(pilot, lambda: bool(session and session.commands), "the commands")
        await pilot.press("slash", "r", "e")
        listed = app.query_one(CompletionList)
        await wait_for(pilot, lambda: listed.open, "the completion list")
        assert [entry.label for entry in listed.entries] == ["/review"]
        await pilot.press("tab")
        assert app.query_one(PromptInput).text == "/review "
        assert not listed.open


async def test_t_on_the_prompt_answers_the_agents_allow_always_option(env: AppEnv) -> None:
    app = _app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.acp is not None, "the agent to start")
        await send(pilot, "write t.txt kept")
        await wait_for(pilot, lambda: app.query(ApprovalPrompt), "the approval prompt")
        prompt = app.query_one(ApprovalPrompt)
        await wait_for(pilot, lambda: prompt.armed, "the prompt to arm")
        await pilot.press("t")
        await wait_text(pilot, "Wrote t.txt (allowed always).")
    assert (env.workspace / "t.txt").read_text() == "kept"


async def test_the_agents_plan_is_one_block_updated_in_place(env: AppEnv) -> None:
    from tui_agent.ui.widgets.plan_block import PlanBlock

    app = _app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.acp is not None, "the agent to start")
        await send(pilot, "plan")
        await wait_for(pilot, lambda: not app.busy, "the prompt to end")
        await wait_text(pilot, "Changing.")
        blocks = list(app.query(PlanBlock))
        assert len(blocks) == 1  # the second plan replaced the first, in the same block
        block = blocks[0]
        assert [(e.status, e.priority) for e in block.entries] == [
            ("completed", "high"),
            ("in_progress", "medium"),
            ("pending", "low"),
        ]
        assert block.settled  # the prompt ended: the transcript may let it go
        text = screen_text(app)
        assert "Plan  1/3 done" in text
        assert "✓ read the code  high" in text
        assert "▸ change it" in text
        # the agent's words: markup not parsed, the control character shown escaped
        assert "○ [bold]not markup[/bold]\\x1b[31m  low" in text
        assert "\x1b" not in text and "plan:" not in text
