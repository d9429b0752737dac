"""Reasoning effort (issue 32, item 2): ``run --effort``, a profile's ``effort``, and ``/effort``
in the app, each as its protocol's own control in the request body the fake provider gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui_agent.ui.widgets.status_bar import StatusBar

from .fake_provider import FakeProvider, Reply, Status
from .run_helpers import KEY, KEY_ENV, Home, final
from .ui_app_helpers import make_env, running, send, wait_for, wait_idle_agent, wait_text


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


# What each protocol's body carries for --effort high (max_tokens 8192: Anthropic's budget
# leaves 1,024 tokens of it for the answer).
HIGH: dict[str, tuple[tuple[str, ...], Any]] = {
    "openai-chat": (("reasoning_effort",), "high"),
    "openai-responses": (("reasoning",), {"effort": "high"}),
    "anthropic": (("thinking",), {"type": "enabled", "budget_tokens": 7168}),
    "gemini": (("generationConfig", "thinkingConfig"), {"thinkingBudget": 16384}),
    "gemini-interactions": (("generation_config", "thinking_level"), "high"),
}


def _at(body: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = body
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


@pytest.mark.parametrize("protocol", sorted(HIGH))
def test_run_effort_is_each_protocols_control(protocol: str, home: Home) -> None:
    with FakeProvider(protocol, api_key=KEY, require_tools=False) as server:
        server.script(final(protocol, "thought hard"))
        done = home.run(server, "hello", "--effort", "high")
        body = server.requests[0].json
    assert done.code == 0, done.stderr
    path, expected = HIGH[protocol]
    assert _at(body, path) == expected


def test_a_profiles_effort_and_its_own_options(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY, require_tools=False) as server:
        home.write_config(
            'default_profile = "c"\n[profiles.c]\nprotocol = "anthropic"\nmodel = "m"\n'
            f'base_url = "{server.base_url}"\napi_key_env = "{KEY_ENV}"\neffort = "low"\n'
            "max_tokens = 4096\n"
        )
        server.script(final("anthropic"), final("anthropic"))
        argv = home.argv(server, "hello")
        cut = argv.index("--protocol")
        plain = argv[:cut] + argv[argv.index("--workspace") :]  # the profile, not the flags
        assert home.run_argv(plain).code == 0
        assert home.run_argv([*plain, "--effort", "high"]).code == 0
        first, second = (r.json for r in server.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 3072}  # 4,096 - 1,024


def test_a_bad_effort_in_config_is_named(home: Home) -> None:
    home.write_config('[profiles.c]\nprotocol = "anthropic"\nmodel = "m"\neffort = "max"\n')
    with FakeProvider("anthropic", api_key=KEY) as server:
        argv = home.argv(server, "hello")
        done = home.run_argv([*argv[: argv.index("--protocol")], "--profile", "c"])
    assert done.code == 1 and "effort" in done.stderr


def test_a_model_that_refuses_effort_is_a_clear_error(home: Home) -> None:
    refusal = {
        "error": {
            "message": "Unsupported parameter: 'reasoning_effort' is not supported with this "
            "model.",
            "type": "invalid_request_error",
            "param": "reasoning_effort",
        }
    }
    with FakeProvider("openai-chat", api_key=KEY, require_tools=False) as server:
        server.script(Status(400, body=json.dumps(refusal).encode()))
        done = home.run(server, "hello", "--effort", "low")
        assert len(server.requests) == 1  # not retried
    assert done.code == 2
    assert "HTTP 400" in done.stderr and "reasoning_effort" in done.stderr


@pytest.mark.heavy
async def test_effort_in_the_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-responses", require_tools=False) as server:
        server.script(
            Reply([("text", "first")], stop="stop"), Reply([("text", "second")], stop="stop")
        )
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            assert status.effort == "" and "effort" not in str(status.render())
            await send(pilot, "/effort medium")
            await wait_for(pilot, lambda: "effort medium" in str(status.render()), "shown")
            await send(pilot, "hello")
            await wait_text(pilot, "first")
            await wait_idle_agent(pilot)
            await send(pilot, "/effort default")
            await wait_for(pilot, lambda: status.effort == "", "cleared")
            await send(pilot, "again")
            await wait_text(pilot, "second")
            await wait_idle_agent(pilot)
        first, second = (r.json for r in server.requests)
    assert first["reasoning"] == {"effort": "medium"}
    assert "reasoning" not in second
