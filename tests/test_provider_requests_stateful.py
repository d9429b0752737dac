"""Stateful profiles send the provider's previous id and only what is new; stateless send all."""

from __future__ import annotations

from tui_agent.conversation import AssistantMessage, ToolResultMessage, UserMessage
from tui_agent.providers import RequestSettings, request_builder
from tui_agent.stream.turn import ToolCall

CALL = ToolCall("call_1", "read_file", '{"path":"a"}')


def _history(protocol: str) -> list[object]:
    return [
        UserMessage("first"),
        AssistantMessage(protocol, "", (CALL,), response_id="resp_9"),
        ToolResultMessage("call_1", "read_file", "contents"),
    ]


def test_responses_stateful_sends_previous_response_id_and_the_tail() -> None:
    settings = RequestSettings(model="m", base_url="http://x/v1", stateful=True)
    body = request_builder("openai-responses")(_history("openai-responses"), [], settings).body  # type: ignore[arg-type]
    assert body["previous_response_id"] == "resp_9"
    assert body["input"] == [
        {"type": "function_call_output", "call_id": "call_1", "output": "contents"}
    ]


def test_interactions_stateful_sends_previous_interaction_id() -> None:
    settings = RequestSettings(model="m", base_url="http://x", stateful=True)
    body = request_builder("gemini-interactions")(
        _history("gemini-interactions"), [], settings
    ).body  # type: ignore[arg-type]
    assert body["previous_interaction_id"] == "resp_9"
    assert [step["type"] for step in body["input"]] == ["function_result"]


def test_a_turn_from_another_protocol_is_never_continued_by_id() -> None:
    settings = RequestSettings(model="m", base_url="http://x/v1", stateful=True)
    body = request_builder("openai-responses")(_history("anthropic"), [], settings).body  # type: ignore[arg-type]
    assert "previous_response_id" not in body
    assert body["input"][0] == {"role": "user", "content": "first"}
    assert {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read_file",
        "arguments": '{"path":"a"}',
    } in body["input"]


def test_stateless_is_the_default_and_sends_everything() -> None:
    settings = RequestSettings(model="m", base_url="http://x/v1")
    body = request_builder("openai-responses")(_history("openai-responses"), [], settings).body  # type: ignore[arg-type]
    assert "previous_response_id" not in body
    assert body["input"][0] == {"role": "user", "content": "first"}
