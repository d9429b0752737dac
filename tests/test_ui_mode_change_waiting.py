"""A mode change governs the calls still waiting for their answer: switching to plan mode while
a write waits for approval used to leave its prompt open, and ``y`` then ran the write. Now the
prompt closes, the transcript says the call is decided again under the new mode, and plan mode
refuses it (nothing runs, whatever is pressed); a mode that still asks asks again."""

from __future__ import annotations

from tui_agent.approval.plan import PLAN_REFUSAL
from tui_agent.ui.approval_mode import set_approval_mode

from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
WRITE = ("call_W", "write_file", {"path": "new.txt", "content": "written\n"})


async def test_plan_mode_refuses_the_write_that_waits_and_y_runs_nothing(env: AppEnv) -> None:
    results = ExpectToolResults({"call_W": "plan mode is on"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(WRITE)), answer(PROTOCOL, "Planned.", expect=results))
        async with running(server, env) as (app, pilot):
            assert app.host is not None
            await send(pilot, "write new.txt")
            prompt = await armed_prompt(pilot)
            await pilot.press("f3")  # ask -> plan, while the write waits
            await wait_text(pilot, "approval: PLAN")
            await wait_for(pilot, lambda: not prompt.is_attached, "the prompt to close")
            await pilot.press("y")  # an answer to the old question: nothing to approve now
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Planned.")
            assert "write_file is decided again" in screen_text(app)
            assert not app.query("ApprovalPrompt")
            assert [card.state for card in cards(app)] == ["denied"]
        assert not (env.workspace / "new.txt").exists()
        server.assert_all_consumed()
    decisions = [r for r in env.records() if r["type"] == "decision"]
    assert [(d["decision"], d["by"]) for d in decisions] == [("refused", "policy")]
    assert PLAN_REFUSAL in decisions[0]["reason"]
    assert not [r for r in env.records() if r["type"] == "tool_start"]


async def test_a_mode_that_still_asks_asks_again(env: AppEnv) -> None:
    results = ExpectToolResults({"call_W": None})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(WRITE)), answer(PROTOCOL, "Wrote it.", expect=results))
        async with running(server, env) as (app, pilot):
            await send(pilot, "write new.txt")
            first = await armed_prompt(pilot)
            set_approval_mode(app, "auto-read")  # a write is still asked in auto-read
            await wait_for(pilot, lambda: not first.is_attached, "the first prompt to close")
            second = await armed_prompt(pilot)
            assert second is not first
            assert "write_file is decided again under it" in screen_text(app)
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Wrote it.")
        assert (env.workspace / "new.txt").read_text() == "written\n"
        server.assert_all_consumed()
