"""Switching to a saved session (the browser, a rewind into a fork) says which one it is once:
"resumed session ID" used to be shown twice, from the host's notices and again by the switch.
The real app under Pilot against the fake provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.session import SessionStore
from tui_agent.session.paths import sessions_dir
from tui_agent.session.records import UserRecord

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider
from .sessions_cli_helpers import assistant
from .ui_app_helpers import KEY, make_env, running, wait_text


async def test_a_switch_says_resumed_session_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    store = SessionStore(sessions_dir())
    with store.create(
        profile="ad-hoc", protocol="openai-chat", model="m", workspace=str(env.workspace)
    ) as writer:
        writer.append(UserRecord(text="an earlier question"))
        writer.append(assistant("an earlier answer"))
    with FakeProvider("openai-chat", api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            await app.switch_session(writer.session_id)
            await wait_text(pilot, "an earlier answer")
            assert screen_text(app).count(f"resumed session {writer.session_id}") == 1
