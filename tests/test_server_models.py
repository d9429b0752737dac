"""The models a server offers (issue 32, item 1): one discovery with the window's, over the fake
provider for every protocol's list; ``tui-agent models``; ``/model`` in the app lists them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui_agent.cli import main
from tui_agent.context.discovery import discover_models, model_choices, model_ids
from tui_agent.ui.screens.model_input import ModelInput

from .fake_provider import FakeProvider, Reply
from .ui_app_helpers import KEY_ENV, make_env, running, send, wait_for, wait_idle_agent, wait_text

OPENAI_LIST = {"object": "list", "data": [{"id": "m", "context_length": 32768}, {"id": "big"}]}
CASES: list[tuple[str, str, Any, tuple[str, ...]]] = [
    ("openai-chat", "/v1/models", OPENAI_LIST, ("m", "big")),
    ("openai-responses", "/v1/models", OPENAI_LIST, ("m", "big")),
    ("anthropic", "/v1/models", {"data": [{"id": "claude-a"}, {"id": "claude-b"}]}, ()),
    (
        "gemini",
        "/v1beta/models",
        {"models": [{"name": "models/m", "inputTokenLimit": 1048576}, {"name": "models/g2"}]},
        ("m", "g2"),
    ),
    (
        "openai-chat",
        "/api/tags",
        {"models": [{"name": "llama3:latest"}, {"name": "qwen3:8b"}]},
        ("llama3:latest", "qwen3:8b"),
    ),
]


@pytest.mark.parametrize(("protocol", "path", "answer", "expected"), CASES)
async def test_each_protocols_list_is_read(
    protocol: str, path: str, answer: Any, expected: tuple[str, ...]
) -> None:
    expected = expected or tuple(e["id"] for e in answer["data"])
    async with httpx.AsyncClient() as client:
        with FakeProvider(protocol) as server:
            server.info[path] = answer
            found = await discover_models(client, protocol, server.base_url, "m", "k")
            assert found.models == expected
            assert server.requests == []  # no model request was spent on it
            asked = [r.path for r in server.info_requests]
    assert asked[0] == {"gemini": "/v1beta/models"}.get(protocol, "/v1/models")
    if path != "/api/tags":
        assert path in asked[:1]


async def test_one_question_answers_the_window_and_the_list() -> None:
    async with httpx.AsyncClient() as client:
        with FakeProvider("openai-chat") as server:
            server.info["/v1/models"] = OPENAI_LIST
            found = await discover_models(client, "openai-chat", server.base_url, "m", None)
            assert found.window is not None and found.window.size == 32768
            assert [r.path for r in server.info_requests] == ["/v1/models"]


def test_names_that_are_no_model_names_are_dropped() -> None:
    payload = {"data": [{"id": "[bold]x"}, {"id": "a\x1b[2J"}, {"id": "ok-1"}, {"id": 3}, {}]}
    assert model_ids(payload) == ("ok-1",)
    choices = model_choices("m", "openai-chat", {"p": ("openai-chat", "m2")}, ["m2", "m", "s"])
    assert choices == [
        ("m", "in use now, offered by the server"),
        ("m2", "of the p profile"),
        ("s", "offered by the server"),
    ]


def _config(tmp_path: Path, server: FakeProvider) -> None:
    config = tmp_path / "config" / "tui-agent" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'default_profile = "fake"\n'
        "[profiles.fake]\n"
        f'protocol = "openai-chat"\nmodel = "m"\nbase_url = "{server.base_url}"\n'
        f'api_key_env = "{KEY_ENV}"\n'
        "[profiles.other]\n"
        f'protocol = "openai-chat"\nmodel = "m2"\nbase_url = "{server.base_url}"\n'
        f'api_key_env = "{KEY_ENV}"\n'
    )


def test_the_models_command_prints_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-chat") as server:
        server.info["/v1/models"] = OPENAI_LIST
        _config(tmp_path, server)
        assert main(["models", "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["profile"] == "fake" and report["server_listed"] is True
        assert [(m["id"], m["source"]) for m in report["models"]] == [
            ("m", "current"),
            ("m2", "profile"),
            ("big", "server"),
        ]
        assert main(["models", "--profile", "other"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [line.split()[0] for line in lines] == ["m2", "m", "big"]
        assert lines[2].endswith("offered by the server")
        assert main(["models", "--profile", "nope"]) == 1


@pytest.mark.heavy
async def test_model_lists_the_servers_models_and_switches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-chat", require_tools=False) as server:
        server.info["/v1/models"] = OPENAI_LIST
        server.script(Reply([("text", "from big")], stop="stop"))
        async with running(server, env) as (app, pilot):
            host = app.host
            assert host is not None and host.window_task is not None
            await wait_for(pilot, host.window_task.done, "the server to be asked")
            assert host.server_models[("openai-chat", server.base_url)] == ("m", "big")
            await send(pilot, "/model")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelInput), "the model list")
            screen = app.screen
            assert isinstance(screen, ModelInput)
            assert ("big", "offered by the server") in screen.choices
            await pilot.press("down", "down", "enter")  # the second row: big
            await wait_for(pilot, lambda: host.profile.model == "big", "the switch")
            await send(pilot, "hello")
            await wait_text(pilot, "from big")
            await wait_idle_agent(pilot)
            assert server.requests[0].json["model"] == "big"
