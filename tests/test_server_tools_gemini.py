"""Gemini generateContent's Google Search grounding: a profile's server_tools adds
``{"google_search": {}}`` to the request, and the candidate's groundingMetadata (the queries it
searched, the pages it used) is told as one ServerToolUsed, shown as a card; nothing runs here."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent.config import Config, resolve_profile
from tui_agent.conversation import AssistantMessage, UserMessage
from tui_agent.providers import RequestSettings, ToolSchema
from tui_agent.providers.gemini_generate.request import model_parts
from tui_agent.providers.registry import request_builder
from tui_agent.stream.events import ServerToolUsed
from tui_agent.turn_reader import TurnReader

FIXTURES = Path(__file__).parent / "fixtures"
RECORDING = FIXTURES / "gemini-grounding" / "gemini25pro-google-search-grounding.sse"
TOOL = ToolSchema("read_file", "reads", {"type": "object", "properties": {}})
SEARCH = ServerToolUsed(
    "google_search",
    "weather in San Francisco today · sources: Weather information for San Francisco, CA, US, "
    "timeanddate.com, weather.gov, wunderground.com, accuweather.com",
)


def _read(pieces: list[bytes]) -> tuple[list[ServerToolUsed], object]:
    reader = TurnReader("gemini")
    seen = [
        item for piece in pieces for item in reader.feed(piece) if isinstance(item, ServerToolUsed)
    ]
    return seen, reader.close()


def _settings(**kwargs: object) -> RequestSettings:
    return RequestSettings(model="m", base_url="http://127.0.0.1:9", **kwargs)  # type: ignore[arg-type]


def test_the_request_carries_google_search() -> None:
    build = request_builder("gemini")
    on = _settings(server_tools=("web_search",))
    body = build([UserMessage("hi")], [TOOL], on).body
    assert body["tools"][0]["functionDeclarations"][0]["name"] == "read_file"
    assert body["tools"][1:] == [{"google_search": {}}]
    # The API takes a search beside declared functions only with this set.
    assert body["toolConfig"] == {"includeServerSideToolInvocations": True}
    alone = build([UserMessage("hi")], [], on).body
    assert alone["tools"] == [{"google_search": {}}] and "toolConfig" not in alone
    off = build([UserMessage("hi")], [TOOL], _settings()).body
    assert "google_search" not in json.dumps(off) and "toolConfig" not in off
    mode = {"functionCallingConfig": {"mode": "AUTO"}}
    kept = build(
        [UserMessage("hi")],
        [TOOL],
        _settings(server_tools=("web_search",), options={"toolConfig": mode}),
    ).body
    assert kept["toolConfig"] == {"includeServerSideToolInvocations": True, **mode}


def test_a_gemini_profile_may_switch_it_on() -> None:
    config = Config.model_validate(
        {
            "profiles": {
                "g": {
                    "protocol": "gemini",
                    "model": "gemini-3-flash-preview",
                    "api_key_env": "",
                    "base_url": "http://127.0.0.1:9",
                    "server_tools": ["web_search"],
                }
            }
        }
    )
    assert resolve_profile(config, profile="g", environ={}).server_tools == ("web_search",)


def test_the_recording_decodes_into_one_search_with_its_sources() -> None:
    seen, turn = _read([RECORDING.read_bytes()])
    assert seen == [SEARCH]
    assert getattr(turn, "text", "").startswith("### Weather in San Francisco")
    assert not getattr(turn, "tool_calls", ())  # nothing for the client to run


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, RECORDING.stat().st_size), max_size=12))
def test_the_recording_cut_anywhere_decodes_the_same(cuts: list[int]) -> None:
    body = RECORDING.read_bytes()
    marks = sorted({0, len(body), *cuts})
    seen, turn = _read([body[a:b] for a, b in pairwise(marks)])
    assert seen == [SEARCH]
    assert getattr(turn, "text", "").startswith("### Weather in San Francisco")


def test_the_recording_cut_inside_every_crlf_decodes_the_same() -> None:
    body = RECORDING.read_bytes()
    at = [i + 1 for i in range(len(body)) if body[i : i + 2] == b"\r\n"]
    marks = [0, *at, len(body)]
    seen, _ = _read([body[a:b] for a, b in pairwise(marks)])
    assert seen == [SEARCH]


def _data(candidate: dict[str, object]) -> str:
    return json.dumps({"candidates": [candidate]})


def _chunk(candidate: dict[str, object]) -> bytes:
    return f"data: {_data(candidate)}\r\n\r\n".encode()


def test_search_parts_beside_functions_are_told_once_and_sent_back() -> None:
    call = {"toolCall": {"toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["q1"]}, "id": "s"}}
    reply = {"toolResponse": {"toolType": "GOOGLE_SEARCH_WEB", "response": {}, "id": "s"}}
    first = {"content": {"role": "model", "parts": [call, reply]}, "index": 0}
    last: dict[str, object] = {
        "content": {"role": "model", "parts": [{"text": "Found."}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "webSearchQueries": ["q1", "q2"],
            "groundingChunks": [{"web": {"uri": "https://example.org/a"}}, {"retrieved": 1}],
        },
    }
    seen, turn = _read([_chunk(first) + _chunk(last)])
    assert seen == [ServerToolUsed("google_search", "q1; q2 · sources: https://example.org/a")]
    raw = (("", _data(first)), ("", _data(last)))
    message = AssistantMessage(text="Found.", protocol="gemini", raw=raw)
    assert model_parts(message)[:2] == [call, reply]
    assert getattr(turn, "text", "") == "Found."


def test_an_ungrounded_turn_tells_no_search() -> None:
    body = _chunk(
        {"content": {"parts": [{"text": "Hi."}]}, "finishReason": "STOP", "groundingMetadata": {}}
    )
    assert _read([body])[0] == []


async def test_the_app_shows_the_grounding_as_a_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.widgets.server_tool_card import ServerToolCard
    from tui_agent.wiring.host_options import HostOptions

    from .fake_provider import FakeProvider, Reply
    from .support.waiting import wait_for
    from .ui_app_helpers import KEY, KEY_ENV, make_env, send, wait_idle_agent, wait_text

    env = make_env(tmp_path, monkeypatch)
    body = RECORDING.read_bytes().replace(b"timeanddate.com", b"time\\u001b[2Janddate.com")
    with FakeProvider("gemini", api_key=KEY) as server:
        server.script(Reply(body))
        folder = env.root / "config" / "tui-agent"
        folder.mkdir(parents=True)
        (folder / "config.toml").write_text(
            f'[profiles.g]\nprotocol = "gemini"\nmodel = "gemini-test"\n'
            f'base_url = "{server.base_url}"\napi_key_env = "{KEY_ENV}"\n'
            'server_tools = ["web_search"]\n',
            encoding="utf-8",
        )
        app = TuiAgentApp(HostOptions(profile="g", workspace=str(env.workspace)))
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            await send(pilot, "weather in San Francisco?")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "ran at the provider · nothing ran here")
            [card] = app.query(ServerToolCard)
            assert card.name_ == "google_search"
            assert "weather in San Francisco today" in card.detail
            plain = card.shown.plain
            assert "weather.gov" in plain and "\x1b" not in plain  # sanitized
            await pilot.press("ctrl+q")
        server.assert_all_consumed()
    sent = json.loads(server.requests[0].body)
    assert {"google_search": {}} in sent["tools"]
    assert sent["toolConfig"]["includeServerSideToolInvocations"] is True
