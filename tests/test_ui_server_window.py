"""The app over a server that reports a window no model has (issue 24: a ``/v1/models``
``context_length`` of 10^400 stopped the app with an OverflowError traceback): the number is
ignored, the app goes on, and its status line shows the context without a window."""

from __future__ import annotations

from pathlib import Path

import pytest

from .fake_provider import FakeProvider
from .ui_app_helpers import answer, make_env, running, screen_text, send, wait_for, wait_idle_agent

CASES = {
    "models 10^400": ("/v1/models", {"data": [{"id": "m", "context_length": 10**400}]}),
    "llama.cpp 4,200 digits": ("/props", {"n_ctx": int("9" * 4200)}),
    "models 1": ("/v1/models", {"data": [{"id": "m", "context_length": 1}]}),
}


@pytest.mark.parametrize("case", CASES)
async def test_the_app_goes_on_past_a_window_no_model_has(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, reported = CASES[case]
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-chat", require_tools=False) as server:
        server.info[path] = reported
        server.script(answer("openai-chat", "first"), answer("openai-chat", "second"))
        async with running(server, env) as (app, pilot):
            host = app.host
            assert host is not None and host.window_task is not None
            await wait_for(pilot, host.window_task.done, "the window to be asked")
            assert host.window_task.result() is False  # nothing adopted
            for text in ("one", "two"):
                await send(pilot, text)
                await wait_idle_agent(pilot)
            assert app.is_running
            assert host.agent.context.size is None
            shown = screen_text(app)
            assert "second" in shown and "ctx " in shown
            assert "9999999" not in shown and "1000000000" not in shown
