"""Ctrl+C that means stop, in the real app: while a tool runs it kills it (no process left),
while a stream runs it stops it, idle with text it clears the box, idle and empty a second press
within 2 s quits; with text selected it still copies."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tui_agent.agent.call_results import INTERRUPTED
from tui_agent.ui import interrupt
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.user_message import UserMessage

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply, Stall
from .hostile.processes import marked, running_with
from .support.clock import ManualClock
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    offset_of,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


@pytest.fixture
def marker(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from marked(monkeypatch)


def hints(app: TuiAgentApp) -> int:
    """How many times the app said a second Ctrl+C would quit."""
    return sum(str(n.message) == interrupt.QUIT_HINT for n in app._notifications)


@pytest.mark.heavy
async def test_ctrl_c_while_a_command_runs_kills_it_and_leaves_no_process(
    env: AppEnv, marker: str
) -> None:
    command = "sleep 30 & sleep 31 & echo started > started.txt; wait"
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(("call_S", "run_command", {"command": command}))))
        async with running(server, env) as (app, pilot):
            await send(pilot, "sleep a while")
            await armed_prompt(pilot)
            await pilot.press("y")
            started = env.workspace / "started.txt"
            await wait_for(pilot, started.exists, "the command to start")
            (card,) = cards(app)
            await wait_for(pilot, lambda: card.state == "running", "the running card")
            assert len(running_with(marker)) >= 2
            app.query_one(PromptInput).focus()
            await pilot.press("ctrl+c")
            await wait_idle_agent(pilot)
            await wait_for(pilot, lambda: not running_with(marker), "no process left", 10.0)
            assert card.state == "interrupted"
            assert app.is_running  # one Ctrl+C while busy stops the work, never the app
            assert len(server.requests) == 1  # the loop waits for the person
        (result,) = [r for r in env.records() if r["type"] == "tool_result"]
        assert (result["status"], result["output"]) == ("interrupted", INTERRUPTED)
        assert running_with(marker) == []


async def test_ctrl_c_while_streaming_stops_the_stream_and_gives_the_message_back(
    env: AppEnv,
) -> None:
    ops = [("text", "Streaming... "), ("text", "never finished")]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops, faults=Stall(offset_of(PROTOCOL, ops, "never"))))
        async with running(server, env) as (app, pilot):
            await send(pilot, "go on")
            await wait_text(pilot, "Streaming...")
            await pilot.press("ctrl+c")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "your message is back in the input")
            assert prompt_text(app) == "go on"
            assert app.is_running
        assert "assistant" not in env.types()


async def test_ctrl_c_idle_clears_the_box_then_twice_quits(env: AppEnv) -> None:
    clock = ManualClock()
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env, clock=clock) as (app, pilot):
            prompt = app.query_one(PromptInput)
            prompt.insert("a draft")
            await pilot.press("ctrl+c")
            assert prompt_text(app) == ""
            assert app.is_running
            await pilot.press("ctrl+c")  # empty: only the hint
            await wait_for(pilot, lambda: hints(app) == 1, "the hint")
            assert app.is_running
            clock.advance(interrupt.QUIT_WINDOW_S + 0.5)  # too late: the hint again, no quit
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: hints(app) == 2, "the hint again")
            assert app.is_running
            clock.advance(1.0)
            await pilot.press("ctrl+c")
            await wait_for(pilot, lambda: not app.is_running, "the app to quit", 10.0)


@pytest.mark.heavy
async def test_ctrl_c_with_text_selected_copies_it(env: AppEnv) -> None:
    clock = ManualClock()  # never moves: every press is inside the double press's window
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(answer(PROTOCOL, "Done."))
        async with running(server, env, clock=clock) as (app, pilot):
            prompt = app.query_one(PromptInput)
            prompt.insert("copy me please")
            prompt.select_all()
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.clipboard == "copy me please"
            assert prompt_text(app) == "copy me please"  # copied, not cleared
            prompt.clear()

            await send(pilot, "hello selection")
            await wait_idle_agent(pilot)
            message = app.query_one(UserMessage)
            region = message.content_region
            text_row = next(
                y
                for y in range(region.y, region.bottom)
                if "hello selection" in screen_text(app).splitlines()[y]
            )
            x = screen_text(app).splitlines()[text_row].index("hello selection")
            await pilot.mouse_down(offset=(x, text_row))
            await pilot.hover(offset=(x + 5, text_row))
            await pilot.mouse_up(offset=(x + 5, text_row))
            await pilot.pause()
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.clipboard.strip() == "hello"
            assert hints(app) == 0
            await pilot.press("ctrl+c")  # the selection stays: copies again, never quits
            await pilot.pause()
            assert app.is_running
