"""The quirks of real servers, each as a small stream in that server's own shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tui_agent import assemble

from . import wire


def sse(*events: Any, event: str | None = None) -> bytes:
    out = []
    for item in events:
        data = item if isinstance(item, str) else json.dumps(item)
        out.append((f"event: {event}\n" if event else "") + f"data: {data}\n\n")
    return "".join(out).encode()


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "chatcmpl-q", "choices": [choice], **extra}


def calls(result: Any) -> list[tuple[str, str, str]]:
    return [(c.id, c.name, c.arguments) for c in result.tool_calls]


def test_chat_without_index_opens_a_call_per_new_id() -> None:  # Mistral, old Ollama
    body = sse(
        chunk({"tool_calls": [{"id": "a1", "function": {"name": "f", "arguments": '{"x":1}'}}]}),
        chunk({"tool_calls": [{"id": "b2", "function": {"name": "g", "arguments": "{"}}]}),
        chunk({"tool_calls": [{"function": {"arguments": "}"}}]}),
        chunk({}, "tool_calls"),
        "[DONE]",
    )
    assert calls(assemble("openai-chat", [body])) == [("a1", "f", '{"x":1}'), ("b2", "g", "{}")]


def test_chat_empty_or_null_id_and_name_never_overwrite() -> None:  # Qwen, vLLM
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f"}}]}),
        chunk(
            {"tool_calls": [{"index": 0, "id": "", "function": {"name": "", "arguments": "{}"}}]}
        ),
        chunk({"tool_calls": [{"index": 0, "id": None, "function": {"arguments": None}}]}),
        chunk({}, "tool_calls"),
        "[DONE]",
    )
    assert calls(assemble("openai-chat", [body])) == [("call_1", "f", "{}")]


def test_chat_arguments_as_an_object_and_a_call_with_no_id() -> None:  # llama.cpp, Ollama
    args = {"path": "ü/x", "n": [1, 2]}
    body = sse(
        chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": args}}]}),
        chunk({}, "tool_calls"),
        "[DONE]",
    )
    result = assemble("openai-chat", [body])
    assert calls(result) == [("tui_chatcmpl-q_0", "f", '{"path":"ü/x","n":[1,2]}')]
    assert result.tool_calls[0].synthetic_id


def test_chat_complete_arguments_resent_are_kept_once() -> None:
    tool = {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a":1}'}}
    body = sse(chunk({"tool_calls": [tool]}), chunk({"tool_calls": [tool]}), "[DONE]")
    assert calls(assemble("openai-chat", [body])) == [("c", "f", '{"a":1}')]


def test_chat_no_finish_reason_with_broken_arguments_is_incomplete() -> None:
    tool = {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a":'}}
    result = assemble("openai-chat", [sse(chunk({"tool_calls": [tool]}), "[DONE]")])
    assert result.to_dict()["outcome"] == "truncated"
    assert result.to_dict()["reason"] == "incomplete"
    assert result.to_dict()["pending_calls"] == [{"id": "c", "name": "f"}]


def test_chat_finish_reason_without_done_is_cut() -> None:
    tool = {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}
    body = sse(chunk({"tool_calls": [tool]}), chunk({}, "tool_calls"))
    result = assemble("openai-chat", [body]).to_dict()
    assert (result["outcome"], result["reason"], result["stop_reason"]) == (
        "truncated",
        "cut",
        "tool_calls",
    )


def test_chat_content_filter_is_filtered() -> None:
    body = sse(chunk({"content": "x"}), chunk({}, "content_filter"), "[DONE]")
    assert assemble("openai-chat", [body]).to_dict()["reason"] == "filtered"


def test_chat_error_event_without_a_type() -> None:  # Groq
    body = b"event: error\ndata: " + json.dumps({"error": {"message": "boom"}}).encode() + b"\n\n"
    result = assemble("openai-chat", [sse(chunk({"content": "a"})) + body]).to_dict()
    assert (result["outcome"], result["reason"], result["error"]) == ("truncated", "error", "boom")


def test_responses_error_with_top_level_fields_then_failed() -> None:
    body = sse(
        {"type": "response.created", "response": {"id": "resp_1"}},
        {"type": "error", "code": "server_error", "message": "flat shape", "param": None},
        {
            "type": "response.failed",
            "response": {"id": "resp_1", "status": "failed", "error": {"message": "later"}},
        },
    )
    result = assemble("openai-responses", [body]).to_dict()
    assert (result["reason"], result["stop_reason"], result["error"]) == (
        "error",
        "failed",
        "flat shape",
    )


def test_responses_incomplete_max_output_tokens_runs_nothing() -> None:
    ops = [("call", 0, "call_1", "f"), ("args", 0, '{"a":')]
    result = assemble("openai-responses", [wire.responses(ops, stop="max_output_tokens")])
    d = result.to_dict()
    assert (d["outcome"], d["reason"], d["stop_reason"]) == (
        "truncated",
        "length",
        "max_output_tokens",
    )
    assert d["pending_calls"] == [{"id": "call_1", "name": "f"}]


def test_responses_done_arguments_win_over_deltas() -> None:
    body = sse(
        {"type": "response.created", "response": {"id": "resp_1"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f"},
        },
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '{"a":1}'},
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "arguments": '{"a": 1}',
        },
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}},
    )
    assert calls(assemble("openai-responses", [body])) == [("call_1", "f", '{"a": 1}')]


def test_anthropic_error_event_mid_stream() -> None:
    ops = [("text", "Hel"), ("call", 0, "toolu_1", "f"), ("args", 0, '{"a"')]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    body = wire.anthropic(ops, terminal=False) + sse(error, event="error")
    d = assemble("anthropic", [body]).to_dict()
    assert (d["reason"], d["error"], d["text"]) == ("error", "Overloaded", "Hel")
    assert d["pending_calls"] == [{"id": "toolu_1", "name": "f"}]


def test_anthropic_second_message_start_is_not_trusted() -> None:
    ops = [("call", 0, "toolu_1", "f"), ("args", 0, "{}"), ("close", 0)]
    first = wire.anthropic(ops, terminal=False)
    body = first[: first.index(b"event: message_delta")] + wire.anthropic(ops)
    d = assemble("anthropic", [body]).to_dict()
    assert d["outcome"] == "truncated" and d["tool_calls"] == []


def test_interactions_failed_and_incomplete_statuses() -> None:
    ops = [("call", 0, "s1", "f"), ("args", 0, "{}"), ("close", 0)]
    for status, reason in [
        ("failed", "error"),
        ("incomplete", "incomplete"),
        ("cancelled", "incomplete"),
        ("budget_exceeded", "incomplete"),
    ]:
        d = assemble("gemini-interactions", [wire.interactions(ops, stop=status)]).to_dict()
        assert (d["outcome"], d["reason"], d["stop_reason"]) == ("truncated", reason, status)


def test_interactions_error_event() -> None:
    body = wire.interactions([("text", "a")], terminal=False) + sse(
        {"error": {"code": "x", "message": "quota"}, "event_type": "error"}, event="error"
    )
    d = assemble("gemini-interactions", [body]).to_dict()
    assert (d["reason"], d["error"]) == ("error", "quota")


@pytest.mark.parametrize(
    ("finish", "reason"),
    [("MAX_TOKENS", "length"), ("SAFETY", "filtered"), ("MALFORMED_FUNCTION_CALL", "incomplete")],
)
def test_gemini_abnormal_finish_reasons(finish: str, reason: str) -> None:
    ops = [("call", 0, "", "f"), ("args", 0, '{"a":1}'), ("close", 0)]
    d = assemble("gemini", [wire.gemini(ops, stop=finish)]).to_dict()
    assert (d["outcome"], d["reason"], d["stop_reason"]) == ("truncated", reason, finish)
    assert d["pending_calls"] == [{"id": "tui_gresp_test_0", "name": "f"}]


def test_gemini_prompt_blocked_and_error_chunk() -> None:
    blocked = sse({"promptFeedback": {"blockReason": "SAFETY"}, "responseId": "r"})
    assert assemble("gemini", [blocked]).to_dict()["reason"] == "filtered"
    error = sse({"error": {"code": 500, "message": "internal", "status": "INTERNAL"}})
    d = assemble("gemini", [error]).to_dict()
    assert (d["reason"], d["error"]) == ("error", "internal")


def test_vertex_partial_args_with_quoted_path_numbers_and_null() -> None:
    def part(fc: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": [{"functionCall": fc}]}}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "responseId": "r1"}

    body = sse(
        part({"name": "f", "willContinue": True}),
        part(
            {
                "partialArgs": [
                    {"jsonPath": "$['a key'][1]", "stringValue": "he", "willContinue": True}
                ],
                "willContinue": True,
            }
        ),
        part(
            {
                "partialArgs": [{"jsonPath": "$['a key'][1]", "stringValue": "llo"}],
                "willContinue": True,
            }
        ),
        part(
            {
                "partialArgs": [
                    {"jsonPath": "$.n", "numberValue": 2.5},
                    {"jsonPath": "$.z", "nullValue": None},
                    {"jsonPath": "$.b", "boolValue": False},
                ],
                "willContinue": True,
            }
        ),
        part({}, "STOP"),
    )
    assert calls(assemble("gemini", [body])) == [
        ("tui_r1_0", "f", '{"a key":[null,"hello"],"n":2.5,"z":null,"b":false}')
    ]


def test_chat_two_indexes_with_the_same_id_stay_two_calls() -> None:
    def frag(index: int, name: str, args: str) -> dict[str, Any]:
        tool = {"index": index, "id": "call_same", "function": {"name": name, "arguments": args}}
        return chunk({"tool_calls": [tool]})

    body = sse(frag(0, "a", '{"x":1}'), frag(1, "b", '{"y":2}'), chunk({}, "tool_calls"), "[DONE]")
    assert calls(assemble("openai-chat", [body])) == [
        ("call_same", "a", '{"x":1}'),
        ("call_same", "b", '{"y":2}'),
    ]
