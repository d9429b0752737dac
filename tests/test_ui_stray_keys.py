"""Typing on anything that is not a key's target goes to the message box: a transcript item
or a chip with focus does not swallow typed text, and an "r" typed there does not open the
rewind screen once typing has begun. The real app under Pilot against the fake provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.user_message import UserMessage

from .fake_provider import FakeProvider
from .ui_app_helpers import KEY, answer, make_env, running, send, wait_idle_agent

PROTOCOL = "openai-chat"


@pytest.mark.heavy
async def test_typing_on_a_transcript_item_goes_to_the_message_box(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(answer(PROTOCOL, "Hi."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "hello")
            await wait_idle_agent(pilot)
            app.query_one(UserMessage).focus()
            await pilot.pause()
            await pilot.press(*"word")  # an "r" inside typed text
            await pilot.pause()
            box = app.query_one(PromptInput)
            assert box.text == "word"
            assert app.focused is box
            assert app.screen is app.screen_stack[0]  # no rewind screen opened
