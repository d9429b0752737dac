"""The providers' own tools: a profile switches web search on in each protocol's request, and
the recordings' server tool blocks decode into ServerToolUsed (shown as a card, never run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent.config import Config, ConfigError, resolve_profile
from tui_agent.conversation import UserMessage
from tui_agent.providers import RequestSettings, ToolSchema
from tui_agent.providers.registry import request_builder
from tui_agent.providers.server_tools import detail, server_tool_line
from tui_agent.stream.events import ServerToolUsed
from tui_agent.turn_reader import TurnReader

FIXTURES = Path(__file__).parent / "fixtures"
TOOL = ToolSchema("read_file", "reads", {"type": "object", "properties": {}})


def _used(protocol: str, body: bytes) -> tuple[list[ServerToolUsed], object]:
    reader = TurnReader(protocol)
    seen = [item for item in reader.feed(body) if isinstance(item, ServerToolUsed)]
    return seen, reader.close()


def test_the_grounding_recording_decodes_into_one_search() -> None:
    body = (FIXTURES / "gemini-interactions" / "google-search-builtin.sse").read_bytes()
    seen, turn = _used("gemini-interactions", body)
    assert [event.name for event in seen] == ["google_search"]
    assert seen[0].detail.startswith("notable AI developments last week May 8-15 2026; AI news")
    assert not getattr(turn, "tool_calls", ())  # nothing for the client to run


@pytest.mark.parametrize(
    "name", ["sonnet46-tool-search-then-tool-use-padded", "tool-search-deferred-step1-tool-use"]
)
def test_anthropic_server_tool_blocks_are_told_not_run(name: str) -> None:
    body = (FIXTURES / "anthropic" / f"{name}.sse").read_bytes()
    seen, turn = _used("anthropic", body)
    assert [event.name for event in seen] == ["tool_search_tool_bm25"]
    assert seen[0].detail  # the query it was given
    calls = getattr(turn, "tool_calls", ())
    assert calls and all(not call.id.startswith("srvtoolu_") for call in calls)


def _sse(events: list[dict[str, object]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_a_responses_web_search_item_is_told() -> None:
    item = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "textual changelog"},
    }
    body = _sse(
        [
            {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "status": "in_progress"},
            },
            {"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {
                "type": "response.output_text.delta",
                "output_index": 1,
                "item_id": "m",
                "delta": "Found.",
            },
            {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}},
        ]
    )
    seen, turn = _used("openai-responses", body)
    assert seen == [ServerToolUsed("web_search", "textual changelog")]
    assert getattr(turn, "text", "") == "Found."


def test_an_anthropic_web_search_streamed_whole() -> None:
    body = _sse(
        [
            {"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 3}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {},
                },
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"query": "rich tables"}'},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_1",
                    "content": [],
                },
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 2},
            },
            {"type": "message_stop"},
        ]
    )
    seen, _ = _used("anthropic", body)
    assert seen == [ServerToolUsed("web_search", "rich tables")]


@pytest.mark.parametrize(
    ("protocol", "entry"),
    [
        ("anthropic", {"type": "web_search_20250305", "name": "web_search"}),
        ("openai-responses", {"type": "web_search"}),
        ("gemini-interactions", {"type": "google_search"}),
    ],
)
def test_a_profile_switches_web_search_on(protocol: str, entry: dict[str, str]) -> None:
    settings = RequestSettings(
        model="m", base_url="http://127.0.0.1:9", server_tools=("web_search",)
    )
    build = request_builder(protocol)
    body = build([UserMessage("hi")], [TOOL], settings).body
    assert body["tools"][-1] == entry
    assert len(body["tools"]) == 2
    alone = build([UserMessage("hi")], [], settings).body
    assert alone["tools"] == [entry]
    off = build(
        [UserMessage("hi")], [], RequestSettings(model="m", base_url="http://127.0.0.1:9")
    ).body
    assert "tools" not in off


def test_profiles_of_other_protocols_are_refused() -> None:
    config = Config.model_validate(
        {
            "profiles": {
                "chat": {
                    "protocol": "openai-chat",
                    "model": "m",
                    "api_key_env": "",
                    "base_url": "http://127.0.0.1:9/v1",
                    "server_tools": ["web_search"],
                }
            }
        }
    )
    with pytest.raises(ConfigError, match="server_tools work with the anthropic"):
        resolve_profile(config, profile="chat", environ={})
    with pytest.raises(Exception, match="web_search"):
        Config.model_validate(
            {"profiles": {"a": {"protocol": "anthropic", "model": "m", "server_tools": ["shell"]}}}
        )


def test_the_detail_and_the_line() -> None:
    assert detail({"queries": ["a", "b"]}) == "a; b"
    assert detail({"url": "https://docs.example/x"}) == "https://docs.example/x"
    assert detail({}) == ""
    assert len(detail({"query": "q" * 1000})) == 300
    assert (
        server_tool_line("web_search", "q")
        == "[web_search] ran at the provider, nothing ran here: q"
    )


@pytest.mark.heavy
async def test_the_app_shows_a_grounding_search_as_a_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.widgets.server_tool_card import ServerToolCard
    from tui_agent.wiring.host_options import HostOptions

    from .fake_provider import FakeProvider, Reply
    from .support.waiting import wait_for
    from .ui_app_helpers import KEY, KEY_ENV, make_env, send, wait_idle_agent, wait_text

    env = make_env(tmp_path, monkeypatch)
    body = (FIXTURES / "gemini-interactions" / "google-search-builtin.sse").read_bytes()
    with FakeProvider("gemini-interactions", api_key=KEY) as server:
        server.script(Reply(body))
        folder = env.root / "config" / "tui-agent"
        folder.mkdir(parents=True)
        (folder / "config.toml").write_text(
            f'[profiles.g]\nprotocol = "gemini-interactions"\nmodel = "m"\n'
            f'base_url = "{server.base_url}"\napi_key_env = "{KEY_ENV}"\n'
            'server_tools = ["web_search"]\n',
            encoding="utf-8",
        )
        app = TuiAgentApp(HostOptions(profile="g", workspace=str(env.workspace)))
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            await send(pilot, "what happened in AI last week?")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "ran at the provider · nothing ran here")
            [card] = app.query(ServerToolCard)
            assert card.name_ == "google_search" and "AI news May 8 2026" in card.detail
            await pilot.press("ctrl+q")
        server.assert_all_consumed()
    sent = json.loads(server.requests[0].body)
    assert {"type": "google_search"} in sent["tools"]


def test_the_card_shows_escapes_not_terminal_sequences() -> None:
    from tui_agent.ui.widgets.server_tool_card import ServerToolCard

    card = ServerToolCard("web\x1b[2Jsearch", "q\x1b]52;c;AAAA\x07 \u202eevil")
    plain = card.shown.plain
    assert "\x1b" not in plain and "\u202e" not in plain and "\\x1b" in plain


async def test_a_paused_server_tool_loop_is_sent_back_to_go_on(tmp_path: Path) -> None:
    from tui_agent.agent.events import LoopEnded, Notice

    from .agent_helpers import agent_over, of_type

    paused = _sse(
        [
            {"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 3}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "rich tables"},
                },
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "pause_turn"},
                "usage": {"output_tokens": 2},
            },
            {"type": "message_stop"},
        ]
    )
    done = _sse(
        [
            {"type": "message_start", "message": {"id": "msg_2", "usage": {"input_tokens": 3}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Found it."},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 2},
            },
            {"type": "message_stop"},
        ]
    )
    from .fake_provider import Reply

    async with agent_over("anthropic", tmp_path, Reply(paused), Reply(done)) as h:
        events = await h.send("search for rich tables")
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
        assert any("paused its own tools" in n.text for n in of_type(events, Notice))
        assert of_type(events, ServerToolUsed) == [ServerToolUsed("web_search", "rich tables")]
        second = json.loads(h.server.requests[1].body)
        last = second["messages"][-1]
        assert last["role"] == "assistant"
        assert last["content"][0]["type"] == "server_tool_use"


_TEXT = {"type": "text", "text": ""}
_FOUND = {"type": "text_delta", "text": "Found it."}


def _stop(reason: str) -> dict[str, object]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason},
        "usage": {"output_tokens": 2},
    }
