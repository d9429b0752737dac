"""An agent event handled after the screen's widgets are gone (the app closing) shows nothing
and raises nothing: it used to raise NoMatches from the context count and fail a worker during
shutdown. The real app under Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.ui.context_view import show_count
from tui_agent.ui.widgets.status_bar import StatusBar

from .fake_provider import FakeProvider
from .ui_app_helpers import KEY, make_env, running


async def test_the_context_count_without_a_status_line_is_a_no_op(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            await app.query_one(StatusBar).remove()
            await pilot.pause()
            show_count(app)  # as an event handled during shutdown would
            show_count(app, 123)
