"""A replayed user decision brings back its approval prompt, read-only (Pilot).

The prompt shows the call ("call k of N", tool, risk, its full arguments) and the decision in
place of the keys; it takes no key, resolves nothing, and is replaced by the next step. Policy
and rule approvals show only their line on the card.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.replay_helpers import FrozenClock, InstantClock
from tests.test_replay_app import SIZE, files, load, replay_to_the_end, screen
from tui_agent.agent.events import CallDecided
from tui_agent.session import SessionStore
from tui_agent.session.records import (
    AssistantRecord,
    DecisionRecord,
    ToolCallRecord,
    ToolResultRecord,
    ToolStartRecord,
    UserRecord,
)
from tui_agent.ui.replay_app import PROMPT_LINGER_S, ReplayApp
from tui_agent.ui.widgets.replayed_prompt import ReplayedPrompt

LIST_ARGS = '{"path": "."}'
WRITE_ARGS = '{"path": "notes.txt", "content": "first line\\nsecond line"}'
RUN_ARGS = '{"command": "rm -rf build", "timeout": 30}'


def asked_session(directory: Path) -> Path:
    """One turn of three calls: auto-approved by policy, approved by you, denied with a reason."""
    store = SessionStore(directory)
    writer = store.create(profile="p", protocol="openai-chat", model="m", workspace="/nowhere")
    t = 1000.0
    calls = [
        ToolCallRecord(id="c1", name="list_dir", arguments=LIST_ARGS),
        ToolCallRecord(id="c2", name="write_file", arguments=WRITE_ARGS),
        ToolCallRecord(id="c3", name="run_command", arguments=RUN_ARGS),
    ]
    records: list[Any] = [
        UserRecord(ts=t, text="tidy up"),
        AssistantRecord(
            ts=t + 1.0,
            protocol="openai-chat",
            model="m",
            text="On it.",
            reasoning="",
            tool_calls=calls,
            stop_reason="tool_calls",
            usage=None,
            response_id="r1",
            raw=[],
        ),
        DecisionRecord(
            ts=t + 1.1,
            call_id="c1",
            decision="approve",
            digest="d1",
            by="policy",
            reason="read-only tool in auto-read mode",
        ),
        DecisionRecord(
            ts=t + 2.0, call_id="c2", decision="approve", digest="d2", by="user", reason=None
        ),
        DecisionRecord(
            ts=t + 3.0, call_id="c3", decision="deny", digest="d3", by="user", reason="not now"
        ),
        ToolResultRecord(
            ts=t + 3.0,
            call_id="c3",
            name="run_command",
            output="denied by user: not now",
            is_error=True,
            status="denied",
        ),
        ToolStartRecord(ts=t + 3.1, call_id="c1", digest="d1"),
        ToolResultRecord(ts=t + 3.2, call_id="c1", name="list_dir", output="notes.txt"),
        ToolStartRecord(ts=t + 3.3, call_id="c2", digest="d2"),
        ToolResultRecord(ts=t + 3.4, call_id="c2", name="write_file", output="wrote notes.txt"),
    ]
    for record in records:
        writer.append(record)
    writer.close()
    return writer.path


def decision_index(app: ReplayApp, call_id: str) -> int:
    """The player position at which the decision on ``call_id`` is on screen."""
    for index, step in enumerate(app.script.steps, 1):
        if isinstance(step.event, CallDecided) and step.event.call_id == call_id:
            return index
    raise AssertionError(call_id)


def prompts(app: ReplayApp) -> list[ReplayedPrompt]:
    return list(app.query(ReplayedPrompt))


async def step_to(app: ReplayApp, pilot: Any, position: int) -> None:
    while app.player.position < position:
        await pilot.press("full_stop")
        await pilot.pause()
    assert app.player.position == position


@pytest.mark.heavy
async def test_a_paused_replay_shows_each_answered_prompt(tmp_path: Path) -> None:
    path = asked_session(tmp_path)
    before = files(tmp_path)
    app = ReplayApp(load(path), speed=1, clock=FrozenClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space")  # paused: only "." moves the replay
        assert app.player.paused

        # The policy's approval: the card's line, no prompt.
        await step_to(app, pilot, decision_index(app, "c1"))
        assert prompts(app) == []

        await step_to(app, pilot, decision_index(app, "c2"))
        [approved] = prompts(app)
        assert approved.parent is app.query_one("#bottom")
        text = approved.shown_text()
        assert "call 2 of 3" in text and "write_file" in text and "write" in text
        assert '"path": "notes.txt"' in text and "first line\\nsecond line" in text
        assert approved.decision == "decided: approved by you"
        assert str(approved.query_one("#decision").content) == "decided: approved by you"
        assert approved.disabled and not approved.can_focus

        # Keys meant for a live prompt change nothing: no focus, no step, same screen.
        shown, position = screen(app), app.player.position
        await pilot.press("y", "n", "r", "e", "t", "A", "p", "enter", "escape", "tab", "down")
        await pilot.pause()
        assert prompts(app) == [approved] and approved.decision == "decided: approved by you"
        focused = app.focused  # tab may move focus between the app's own panes, never here
        assert focused is None or approved not in focused.ancestors_with_self
        assert (screen(app), app.player.position, app.player.paused) == (shown, position, True)

        await step_to(app, pilot, decision_index(app, "c3"))
        [denied] = prompts(app)  # the previous one is gone
        assert not approved.is_attached
        text = denied.shown_text()
        assert "call 3 of 3" in text and "run_command" in text and "execute" in text
        assert "rm -rf build" in text and '"timeout": 30' in text
        assert denied.decision == "denied: not now"

        await pilot.press("full_stop")
        await pilot.pause()
        assert prompts(app) == []  # the next step replaced it
        await step_to(app, pilot, len(app.script))
        await pilot.pause()
        assert app.player.finished
        calls = {row[1]: row[2:4] for row in screen(app) if row[0] == "call"}
    assert calls["list_dir"] == ("done", "auto-approved: read-only tool in auto-read mode")
    assert calls["run_command"] == ("denied", "denied: not now")
    assert files(tmp_path) == before


async def test_at_speed_0_the_prompts_still_come_and_go(tmp_path: Path) -> None:
    app = ReplayApp(load(asked_session(tmp_path)), speed=0)
    async with app.run_test(size=SIZE) as pilot:
        await replay_to_the_end(app, pilot)
        assert prompts(app) == []
    shown = [(p.call_id, p.tool_name, p.decision) for p in app.prompts_shown]
    assert shown == [
        ("c2", "write_file", "decided: approved by you"),
        ("c3", "run_command", "denied: not now"),
    ]


async def test_the_prompt_lingers_one_second_over_the_speed(tmp_path: Path) -> None:
    clock = InstantClock()
    app = ReplayApp(load(asked_session(tmp_path)), speed=2, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await replay_to_the_end(app, pilot)
    for call_id in ("c2", "c3"):
        following = app.script.steps[decision_index(app, call_id)]
        assert (following.delay + PROMPT_LINGER_S) / 2 in clock.sleeps
