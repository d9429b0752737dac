"""web_fetch in the real app under Pilot and in `run`, against a loopback page: the prompt shows
the exact URL, the page reaches the model as Markdown once the network is on, and with it off
the call is refused without a request."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .run_helpers import KEY as RUN_KEY
from .run_helpers import Home, final
from .test_tools_web_fetch import Handler, _serve
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    make_env,
    running,
    send,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    return make_env(tmp_path, monkeypatch)


@pytest.fixture
def site() -> Iterator[str]:
    server, base = _serve()
    Handler.seen = []
    try:
        yield base
    finally:
        server.shutdown()


def _network(folder: Path, on: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    value = "true" if on else "false"
    (folder / "config.toml").write_text(f"[settings]\nsandbox_network = {value}\n", "utf-8")


async def test_the_prompt_shows_the_url_and_the_page_reaches_the_model(
    env: AppEnv, site: str
) -> None:
    _network(env.root / "config" / "tui-agent", on=True)
    url = f"{site}/page"
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(("call_F", "web_fetch", {"url": url}))),
            answer(PROTOCOL, "Read it.", expect=ExpectToolResults({"call_F": "# Welcome"})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "read the page")
            await armed_prompt(pilot)
            shown = screen_text(app)
            assert "URL, fetched exactly as shown" in shown and url in shown
            assert "no key or cookie is sent" in shown
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Read it.")
        server.assert_all_consumed()
    assert [r["path"] for r in Handler.seen] == ["/page"]


def test_run_with_the_network_off_sends_nothing(tmp_path: Path, site: str) -> None:
    home = Home(tmp_path)
    _network(home.config / "tui-agent", on=False)
    with FakeProvider(PROTOCOL, api_key=RUN_KEY) as server:
        server.script(
            Reply(call_ops(("call_F", "web_fetch", {"url": f"{site}/page"}))),
            final(PROTOCOL, "Could not.", ExpectToolResults({"call_F": "/network on"})),
        )
        done = home.run(server, "read the page", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert Handler.seen == []
