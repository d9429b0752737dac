"""Execution sandbox, in the real app: while an approved command floods output and keeps 50
children, the app stays responsive (the event loop serves, typing reaches the message box), and
Esc kills every process the command started. Driven by Pilot against the fake provider."""

from __future__ import annotations

import contextlib
from pathlib import Path

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
from .processes import running_with

PROTOCOL = "openai-chat"
CHILDREN = 50
# 50 sleeping children, then an endless flood of output on stdout.
FLOOD = f"for i in $(seq {CHILDREN}); do sleep 60 & done; yes 'flooding the pipe'"


def _programs(marker: str) -> set[str]:
    """The names of the processes the test's commands started."""
    names = set()
    for pid in running_with(marker):
        with contextlib.suppress(OSError):
            names.add(Path(f"/proc/{pid}/comm").read_text().strip())
    return names


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
            await wait_for(pilot, lambda: "yes" in _programs(marker), "the flood")
            box = app.query_one(PromptInput)
            box.focus()
            # The flood never ends by itself: keys that reach the box while it pours in prove
            # the event loop serves (a loop held by the output would never show them).
            for char in "still here":
                # Posted as the terminal driver does; Pilot's press would also wait for the
                # whole app to go idle, which a running command's card never lets it do.
                app.post_message(events.Key(char, char))
            await wait_for(pilot, lambda: box.text == "still here", "the typed keys")
            await wait_for(pilot, lambda: "still here" in screen_text(app), "typed text")
            assert card.state == "running" and "running: run_command" in screen_text(app)
            assert "yes" in _programs(marker)  # the flood goes on meanwhile
            await pilot.press("escape")
            await wait_idle_agent(pilot)
            # Bounded far below the children's 60 s: a command waited out fails here.
            await wait_for(pilot, lambda: not running_with(marker), "every process to be gone")
            assert card.state == "interrupted"
            assert "still here" in box.text  # what the user typed is kept
            assert len(server.requests) == 1  # the loop waits for the user
        (result,) = [r for r in env.records() if r["type"] == "tool_result"]
        assert (result["status"], result["output"]) == ("interrupted", INTERRUPTED)
