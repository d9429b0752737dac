"""Ctrl+G edits the message in $EDITOR (a script that rewrites the file) and the text comes
back; Alt+R finds a message of another session of the same workspace (and not one of another
workspace) and puts it into the box; /editor and /history do the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.ui.screens.history_search import HistorySearch
from tui_agent.ui.widgets.prompt_input import PromptInput

from .fake_provider import FakeProvider
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    make_env,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
)

PROTOCOL = "openai-chat"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    env = make_env(tmp_path, monkeypatch)
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "text = open(path).read()\n"
        "open(path, 'w').write('edited: ' + text.upper() + '\\n')\n"
    )
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"python3 {script}")
    return env


@pytest.mark.heavy
async def test_ctrl_g_edits_the_message_in_the_editor(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "Ok."))
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).insert("fix the bug\nin main")
            await pilot.press("ctrl+g")
            await wait_for(pilot, lambda: prompt_text(app).startswith("edited:"), "the edit")
            assert prompt_text(app) == "edited: FIX THE BUG\nIN MAIN"
            await send(pilot, "")  # Enter: the edited text is sent as it came back
            await wait_idle_agent(pilot)
            assert "edited: FIX THE BUG\\nIN MAIN" in server.requests[0].body.decode()


@pytest.mark.heavy
async def test_ctrl_g_without_an_editor_says_so(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EDITOR")
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            app.query_one(PromptInput).insert("kept")
            await pilot.press("ctrl+g")
            await wait_for(pilot, lambda: app._notifications, "the notice")
            assert "$EDITOR" in str(next(iter(app._notifications)).message)
            assert prompt_text(app) == "kept"


@pytest.mark.heavy
async def test_history_search_finds_a_message_of_another_session(
    env: AppEnv, tmp_path: Path
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "One."), answer(PROTOCOL, "Two."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "deploy the staging cluster tonight")
            await wait_idle_agent(pilot)
        # A session of another workspace: never offered.
        other = tmp_path / "elsewhere"
        other.mkdir()
        env_other = AppEnv(env.root, other, env.data)
        async with running(server, env_other) as (app, pilot):
            await send(pilot, "deploy the secret elsewhere thing")
            await wait_idle_agent(pilot)
        assert len(env.sessions()) == 2
        async with running(server, env) as (app, pilot):
            await pilot.press("alt+r")
            await wait_for(pilot, lambda: isinstance(app.screen, HistorySearch), "the search")
            screen = app.screen
            assert isinstance(screen, HistorySearch)
            await wait_for(pilot, lambda: screen.entries, "the messages")
            assert [e.text for e in screen.entries] == ["deploy the staging cluster tonight"]
            for char in "dsc":  # fuzzy: d..s..c
                await pilot.press(char)
            await wait_for(pilot, lambda: len(screen.shown) == 1, "the match")
            await pilot.press("enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, HistorySearch), "closed")
            assert prompt_text(app) == "deploy the staging cluster tonight"
            # /history opens it too; Esc leaves the box as it was.
            app.query_one(PromptInput).clear()
            await send(pilot, "/history")
            await wait_for(pilot, lambda: isinstance(app.screen, HistorySearch), "again")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, HistorySearch), "closed")
        assert len(server.requests) == 2
        records = [json.loads(line) for line in env.sessions()[0].read_text().splitlines()]
        assert records[0]["type"] == "header"
