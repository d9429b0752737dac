"""One llama.cpp-like server, the same window through every profile (issue 34, item 2): a
2,048-token ``n_ctx`` was shown as 2,048 through Chat Completions and as the table's 32,768
through Anthropic. The app asks every server the same way and says where the figure came from
(``/context``, the status line's tooltip)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.status_bar import StatusBar
from tui_agent.wiring.host_options import HostOptions

from .fake_provider import FakeProvider
from .ui_app_helpers import KEY_ENV, SIZE, make_env, screen_text, send, wait_for

# What llama-server answers (its /v1/models id is the file it loaded; meta holds the length the
# model was trained for, n_ctx_train, not the context the server runs with: /props n_ctx).
LLAMA_INFO = {
    "/v1/models": {
        "object": "list",
        "data": [
            {
                "id": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                "object": "model",
                "owned_by": "llamacpp",
                "meta": {"n_ctx_train": 32768, "n_vocab": 151936},
            }
        ],
    },
    "/props": {"default_generation_settings": {"n_ctx": 2048}, "total_slots": 1},
}
MODEL = "qwen2.5-coder-1.5b"  # the built-in table says 32,768 for this name


@pytest.mark.parametrize("protocol", ["openai-chat", "openai-responses", "anthropic"])
@pytest.mark.heavy
async def test_the_same_server_shows_the_same_window(
    protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider(protocol, require_tools=False) as server:
        server.info.update(LLAMA_INFO)
        options = HostOptions(
            protocol=protocol,
            model=MODEL,
            base_url=server.base_url,
            api_key_env=KEY_ENV,
            workspace=str(env.workspace),
        )
        app = TuiAgentApp(options)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            host = app.host
            assert host is not None and host.window_task is not None
            await wait_for(pilot, host.window_task.done, "the window to be asked")
            window = host.agent.context.window
            assert (window.size, window.source) == (2048, "server")
            assert window.where == "llama.cpp's GET /props (n_ctx)"
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: "/2.0k " in str(status.render()), "the window shown")
            assert "2,048 tokens, from the server" in str(status.tooltip)
            await send(pilot, "/context")
            await wait_for(pilot, lambda: "llama.cpp's GET /props" in screen_text(app), "/context")
            assert "window: 2,048 tokens, from the server" in screen_text(app)
            await pilot.press("ctrl+q")
        asked = [r.path for r in server.info_requests]
        assert asked[:2] == ["/v1/models", "/props"]
        assert server.requests == []  # no model request was spent on it
