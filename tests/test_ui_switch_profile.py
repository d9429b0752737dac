"""Profile and model switch for the next turn; the conversation goes with it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tui_agent.ui.app import TuiAgentApp
from tui_agent.wiring.host_options import HostOptions

from .fake_provider import FakeProvider, Reply
from .ui_app_helpers import KEY_ENV, make_env, send, wait_idle_agent, wait_text


async def _until(condition: object, timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)


@pytest.mark.asyncio
async def test_switching_profile_then_model_keeps_the_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    with FakeProvider("openai-chat", api_key="fake-key-value", require_tools=False) as server:
        config = tmp_path / "config" / "tui-agent" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(
            "[profiles.fake]\n"
            'protocol = "openai-chat"\nmodel = "m1"\n'
            f'base_url = "{server.base_url}"\napi_key_env = "{KEY_ENV}"\n'
        )
        server.script(
            Reply([("text", "from fake")], stop="stop"), Reply([("text", "from m2")], stop="stop")
        )
        app = TuiAgentApp(HostOptions(profile="demo", workspace=str(env.workspace)))
        async with app.run_test(size=(120, 40)) as pilot:
            await _until(lambda: app.host is not None)
            await send(pilot, "hello")
            await wait_idle_agent(pilot)
            app.switch_profile("fake")
            await _until(lambda: app.host is not None and app.host.profile.name == "fake")
            await send(pilot, "second question")
            await wait_text(pilot, "from fake")
            await wait_idle_agent(pilot)
            first = server.requests[0].json
            assert first["model"] == "m1"
            sent = [m.get("content") for m in first["messages"]]
            assert "hello" in sent and "second question" in sent
            app.switch_profile(None, "m2")
            await _until(lambda: app.host is not None and app.host.profile.model == "m2")
            await send(pilot, "third")
            await wait_text(pilot, "from m2")
            assert server.requests[1].json["model"] == "m2"
        assert env.types().count("note") >= 2


@pytest.mark.asyncio
@pytest.mark.heavy
async def test_leaving_without_a_word_leaves_no_session_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(env.workspace)))
    async with app.run_test(size=(120, 40)) as pilot:
        await _until(lambda: app.host is not None)
        assert len(env.sessions()) == 1
        await pilot.press("ctrl+q")
    assert env.sessions() == []
