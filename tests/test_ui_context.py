"""The context window in the app (Pilot, against the fake provider with a 4,000-token window):
the status line's count and its warning colour, the "compacted here" divider, the count and
the divider after resuming and after switching sessions, /compact and other slash commands, and
F8 after an overflow."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.compaction_divider import CompactionDivider
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.status_bar import StatusBar

from .approval_prompt_app import screen_text
from .context_helpers import OVERFLOW_BODIES, overflow_status, text_reply
from .fake_provider import FakeProvider
from .ui_app_helpers import (
    KEY,
    SIZE,
    AppEnv,
    make_app,
    make_env,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

SUMMARY = "SUMMARY: the release ships on friday."
LONG = "The release ships on friday. " * 160


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    env = make_env(tmp_path, monkeypatch)
    folder = tmp_path / "config" / "tui-agent"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("[settings]\ncontext_window = 4000\nmax_retries = 0\n")
    return env


def _status(app: TuiAgentApp) -> StatusBar:
    return app.query_one(StatusBar)


async def _ask(pilot: Pilot[None], text: str) -> None:
    await send(pilot, text)
    await pilot.pause()
    await wait_idle_agent(pilot)


async def test_count_warning_divider_resume_and_switch(env: AppEnv) -> None:
    protocol = "openai-chat"
    with FakeProvider(protocol, api_key=KEY, require_tools=False) as server:
        server.script(
            text_reply(protocol, LONG, 3500),
            text_reply(protocol, SUMMARY, 200),
            text_reply(protocol, "Friday.", 1500),
        )
        async with running(server, env) as (app, pilot):
            assert _status(app).context.startswith("ctx ") and "/4k" in _status(app).context
            await _ask(pilot, "when do we ship?")
            assert _status(app).context == "ctx 3.5k/4k 88%"
            assert _status(app).context_warning
            await _ask(pilot, "remind me?")
            await wait_for(pilot, lambda: app.query(CompactionDivider), "the divider")
            await wait_text(pilot, "compacted here (automatically)")
            assert _status(app).context == "ctx 1.5k/4k 38%"
            assert not _status(app).context_warning
            session = app.host.writer.session_id if app.host else ""
        server.assert_all_consumed()
        # Resumed: the same count, the divider where it was.
        resumed = dataclasses.replace(make_app(server, env).options, resume=session)
        async with TuiAgentApp(resumed).run_test(size=SIZE) as pilot:
            app = pilot.app
            assert isinstance(app, TuiAgentApp)
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            await wait_for(pilot, lambda: app.query(CompactionDivider), "the resumed divider")
            assert _status(app).context == "ctx 1.5k/4k 38%"
            text = screen_text(app)
            assert text.index("remind me?") < text.index("compacted here") < text.index("Friday.")
            await pilot.press("ctrl+q")
        # Switched to from another session: the same again.
        async with running(server, env) as (app, pilot):
            await wait_for(pilot, lambda: bool(_status(app).context), "the count")
            assert _status(app).context.startswith("ctx ")
            await app.switch_session(session)
            await wait_for(pilot, lambda: app.query(CompactionDivider), "the divider")
            assert _status(app).context == "ctx 1.5k/4k 38%"


async def test_slash_commands_and_compact_after_an_overflow(env: AppEnv) -> None:
    protocol = "anthropic"
    with FakeProvider(protocol, api_key=KEY, require_tools=False) as server:
        server.script(
            text_reply(protocol, LONG, 1000),
            overflow_status(OVERFLOW_BODIES[protocol]),
            text_reply(protocol, SUMMARY, 200),
            text_reply(protocol, "Done again.", 900),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "/frobnicate")
            await pilot.pause()
            assert len(server.requests) == 0  # not sent; the text stays in the box
            assert app.query_one(PromptInput).text == "/frobnicate"
            app.query_one(PromptInput).clear()
            await send(pilot, "/compact")
            await wait_text(pilot, "nothing to compact yet")
            assert len(server.requests) == 0
            await _ask(pilot, "when do we ship?")
            await _ask(pilot, "and again?")
            await wait_text(pilot, "no longer fits in the model's context window")
            await wait_text(pilot, "Press F8")
            await wait_idle_agent(pilot)
            assert "/1k " in _status(app).context  # the limit the error named
            await pilot.press("f8")
            await pilot.pause()
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Done again.")
            assert app.query(CompactionDivider)
        server.assert_all_consumed()
        assert SUMMARY in server.requests[3].body.decode()
