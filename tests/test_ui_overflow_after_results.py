"""After an overflow on the request that follows a tool result (issue 34, item 7), in the app
(Pilot, against the fake provider over loopback, with llama.cpp's 2,048-token window and its
overflow body from tests/fixtures/llamacpp): F8 cuts the result that did not fit and goes on
where the loop stopped, sending the request again; Ctrl+R sends it again as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .agent_helpers import call_ops
from .context_helpers import overflow_status, reply, text_reply
from .fake_provider import FakeProvider
from .ui_app_helpers import KEY, AppEnv, make_env, running, send, wait_idle_agent, wait_text

PROTOCOL = "openai-chat"
LLAMACPP_OVERFLOW = json.loads(
    (Path(__file__).parent / "fixtures" / "llamacpp" / "overflow-400.written.json").read_text()
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    env = make_env(tmp_path, monkeypatch)
    folder = tmp_path / "config" / "tui-agent"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(
        '[settings]\ncontext_window = 2048\nmax_retries = 0\n[approval]\nmode = "auto-read"\n'
    )
    return env


def _script(*after: object) -> list[object]:
    return [
        reply(PROTOCOL, call_ops(("call_R", "read_file", {"path": "data.csv"})), 600),
        overflow_status(LLAMACPP_OVERFLOW),
        *after,
    ]


def _csv(env: AppEnv) -> None:
    rows = "".join(f"{i},{i * 37},{i * 7919 % 10**6}\n" for i in range(1000))
    (env.workspace / "data.csv").write_text("id,a,b\n" + rows)


async def test_f8_cuts_the_result_and_sends_the_request_again(env: AppEnv) -> None:
    _csv(env)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(*_script(text_reply(PROTOCOL, "The CSV has 1000 rows.", 900)))
        async with running(server, env) as (_app, pilot):
            await send(pilot, "read data.csv")
            await pilot.pause()
            await wait_idle_agent(pilot)
            await wait_text(pilot, "no longer fits in the model's context window")
            await pilot.press("f8")
            await pilot.pause()
            await wait_idle_agent(pilot)
            await wait_text(pilot, "The CSV has 1000 rows.")
            await wait_text(pilot, "did not fit the context window")
        server.assert_all_consumed()
        again = server.requests[2].body.decode()
        assert '"role": "tool"' in again or '"role":"tool"' in again
        assert "cut to fit the model's context window" in again


async def test_ctrl_r_sends_the_results_again(env: AppEnv) -> None:
    _csv(env)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(*_script(text_reply(PROTOCOL, "Read it.", 900)))
        async with running(server, env) as (_app, pilot):
            await send(pilot, "read data.csv")
            await pilot.pause()
            await wait_idle_agent(pilot)
            await wait_text(pilot, "no longer fits in the model's context window")
            await pilot.press("ctrl+r")
            await pilot.pause()
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Read it.")
        server.assert_all_consumed()
        again = server.requests[2].body.decode()
        assert '"tool_call_id": "call_R"' in again or '"tool_call_id":"call_R"' in again
