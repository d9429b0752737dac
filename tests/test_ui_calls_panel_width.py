"""Under 100 columns an empty calls panel gives its room to the conversation; it shows once the
session has a call, and F2 still shows or hides it whatever it holds. At 100 columns and more it
is there from the start. The real app under Pilot against the fake provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.ui.widgets.side_panel import SidePanel

from .fake_provider import FakeProvider, Reply
from .ui_app_helpers import (
    KEY,
    answer,
    call_ops,
    make_app,
    make_env,
    send,
    wait_for,
    wait_prompt,
)

PROTOCOL = "openai-chat"


@pytest.mark.parametrize(("size", "shown_empty"), [((80, 24), False), ((120, 40), True)])
@pytest.mark.heavy
async def test_an_empty_calls_panel_leaves_a_small_terminal_to_the_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int], shown_empty: bool
) -> None:
    env = make_env(tmp_path, monkeypatch)
    call = ("call_L", "list_dir", {"path": "."})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(call)), answer(PROTOCOL, "Listed."))
        app = make_app(server, env)
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            panel = app.query_one(SidePanel)
            assert panel.display is shown_empty
            await send(pilot, "list")
            await wait_prompt(pilot)
            assert panel.display  # a call: the panel is there
            await pilot.press("f2")  # F2 hides and shows it, as before
            await pilot.pause()
            assert not panel.display
            await pilot.press("f2")
            await pilot.pause()
            assert panel.display
            await pilot.press("ctrl+q")


async def test_f2_shows_an_empty_panel_on_a_small_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        app = make_app(server, env)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            panel = app.query_one(SidePanel)
            assert not panel.display
            await pilot.press("f2")
            await pilot.pause()
            assert panel.display
            await pilot.press("ctrl+q")
