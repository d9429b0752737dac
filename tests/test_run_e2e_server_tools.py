"""`tui-agent run` as a subprocess: a search the provider ran itself is one line on stderr,
and nothing runs here."""

from __future__ import annotations

from pathlib import Path

import pytest

from .fake_provider import FakeProvider, Reply
from .run_helpers import KEY, Home
from .test_server_tools import FIXTURES

pytestmark = pytest.mark.heavy


def test_run_tells_a_grounding_search(tmp_path: Path) -> None:
    home = Home(tmp_path)
    body = (FIXTURES / "gemini-interactions" / "google-search-builtin.sse").read_bytes()
    with FakeProvider("gemini-interactions", api_key=KEY) as server:
        server.script(Reply(body))
        done = home.run(server, "what happened in AI last week?")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    line = "[google_search] ran at the provider, nothing ran here: notable AI developments"
    assert line in done.stderr
    assert "Here's a notable AI development" in done.stdout
    assert "tool_start" not in [record["type"] for record in home.records()]


def test_run_json_names_the_search(tmp_path: Path) -> None:
    home = Home(tmp_path)
    body = (FIXTURES / "gemini-interactions" / "google-search-builtin.sse").read_bytes()
    with FakeProvider("gemini-interactions", api_key=KEY) as server:
        server.script(Reply(body))
        done = home.run(server, "what happened in AI last week?", "--json")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    [search] = [event for event in done.events() if event["type"] == "server_tool"]
    assert search["name"] == "google_search"
    assert search["detail"].startswith("notable AI developments last week")


def test_run_json_names_the_gemini_grounding(tmp_path: Path) -> None:
    home = Home(tmp_path)
    body = (FIXTURES / "gemini-grounding" / "gemini25pro-google-search-grounding.sse").read_bytes()
    with FakeProvider("gemini", api_key=KEY) as server:
        server.script(Reply(body))
        done = home.run(server, "weather in San Francisco?", "--json")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    [search] = [event for event in done.events() if event["type"] == "server_tool"]
    assert search["name"] == "google_search"
    assert search["detail"].startswith("weather in San Francisco today · sources: ")
    assert "weather.gov" in search["detail"]
