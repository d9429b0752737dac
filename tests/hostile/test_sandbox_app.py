"""Execution sandbox, in the real app: while an approved command floods output and keeps 50
children, the app stays responsive (the event loop serves, typing reaches the message box), and
Esc kills every process the command started. Driven by Pilot against the fake provider."""

from __future__ import annotations

import asyncio
import time

from textual import events

from tui_agent.agent.call_results import INTERRUPTED
from tui_agent.ui.widgets.prompt_input import PromptInput

from ..approval_prompt_app import screen_text
from ..fake_provider import FakeProvider, Reply
from ..ui_app_helpers import (
    KEY,
    AppEnv,
    armed_prompt,
    call_ops,
    cards,
    running,
    send,
    wait_for,
    wait_idle_agent,
)
from .processes import MAX_LOOP_LAG_S, LoopWatch, running_with

PROTOCOL = "openai-chat"
CHILDREN = 50
# 50 sleeping children, then an endless flood of output on stdout.
FLOOD = f"for i in $(seq {CHILDREN}); do sleep 60 & done; yes 'flooding the pipe'"


async def test_the_app_stays_responsive_while_a_command_floods_and_esc_kills_the_group(
    env: AppEnv, marker: str
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(("call_F", "run_command", {"command": FLOOD}))))
        async with running(server, env) as (app, pilot):
            await send(pilot, "flood the terminal")
            await armed_prompt(pilot)
            await pilot.press("y")
            (card,) = cards(app)
            await wait_for(pilot, lambda: card.state == "running", "the running card")
            await wait_for(
                pilot, lambda: len(running_with(marker)) > CHILDREN, "the command and children"
            )
            watch = LoopWatch()
            ticker = asyncio.create_task(watch.run())
            try:
                began = time.monotonic()
                box = app.query_one(PromptInput)
                box.focus()
                for char in "still here":  # each key reaches the box at once
                    before, sent = box.text, time.monotonic()
                    # Posted as the terminal driver does; Pilot's press would also wait for the
                    # whole app to go idle, which a running command's card never lets it do.
                    app.post_message(events.Key(char, char))
                    while box.text == before and time.monotonic() - sent < MAX_LOOP_LAG_S:
                        await asyncio.sleep(0.002)
                    latency = time.monotonic() - sent
                    assert latency < MAX_LOOP_LAG_S, f"{char!r} took {latency:.3f} s"
                await wait_for(pilot, lambda: "still here" in screen_text(app), "typed text")
                while time.monotonic() - began < 1.0:  # the flood goes on meanwhile
                    await asyncio.sleep(0.05)
            finally:
                ticker.cancel()
            assert watch.ticks > 20 and watch.worst < MAX_LOOP_LAG_S, watch.worst
            assert card.state == "running" and "running: run_command" in screen_text(app)
            started = time.monotonic()
            await pilot.press("escape")
            await wait_idle_agent(pilot)
            await wait_for(pilot, lambda: not running_with(marker), "every process to be gone")
            assert time.monotonic() - started < 10.0
            assert card.state == "interrupted"
            assert "still here" in box.text  # what the user typed is kept
            assert len(server.requests) == 1  # the loop waits for the user
        (result,) = [r for r in env.records() if r["type"] == "tool_result"]
        assert (result["status"], result["output"]) == ("interrupted", INTERRUPTED)
