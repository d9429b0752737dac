"""Hostile input, stream group (issue 6): how a call's arguments are put together.

Interleaved calls; the same index with different ids; an id only on the first fragment;
arguments split inside a \\u escape and inside a surrogate pair; zero-argument calls as "",
null or missing; ``{"a":1}{"b":2}``, trailing garbage and duplicate keys, which never reach a
tool. Each case runs in every protocol whose wire format can carry it.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent import assemble
from tui_agent.providers import PROTOCOLS
from tui_agent.stream.turn import Turn
from tui_agent.tools.arguments import InvalidArguments, parse_arguments

from .. import wire

# Gemini sends each call whole, as an object: it has no fragments to interleave or split.
FRAGMENTED = ["openai-chat", "anthropic", "openai-responses", "gemini-interactions"]


def sse(*events: Any) -> bytes:
    return "".join(
        f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n" for e in events
    ).encode()


def calls(protocol: str, body: bytes) -> list[tuple[str, str, str]]:
    result = assemble(protocol, [body])
    assert isinstance(result, Turn), result.to_dict()
    return [(c.id, c.name, c.arguments) for c in result.tool_calls]


def chat_chunk(tool: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    delta = {"tool_calls": [tool]} if tool else {}
    return {"id": "chatcmpl-h", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


# -- interleaved calls -----------------------------------------------------------------------

_text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=20)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)


def _fragments(draw: st.DrawFn, text: str) -> list[str]:
    cuts = draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=10))
    edges = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    return [text[a:b] for a, b in pairwise(edges)]


@st.composite
def _interleaved(draw: st.DrawFn) -> tuple[list[str], list[wire.Op]]:
    count = draw(st.integers(2, 4))
    texts = [
        json.dumps(
            draw(st.dictionaries(_text, _values, min_size=1, max_size=4)),
            ensure_ascii=draw(st.booleans()),
        )
        for _ in range(count)
    ]
    queues = [_fragments(draw, text) for text in texts]
    ops: list[wire.Op] = [("call", i, f"call_{i}", f"tool_{i}") for i in range(count)]
    while any(queues):
        i = draw(st.sampled_from([i for i, q in enumerate(queues) if q]))
        ops.append(("args", i, queues[i].pop(0)))
    return texts, ops + [("close", i) for i in range(count)]


@pytest.mark.parametrize("protocol", FRAGMENTED)
@settings(max_examples=25, deadline=None)
@given(case=_interleaved(), split=st.integers(1, 64))
def test_interleaved_calls_each_get_exactly_their_own_bytes(
    protocol: str, case: tuple[list[str], list[wire.Op]], split: int
) -> None:
    texts, ops = case
    body = wire.BUILDERS[protocol](ops)
    result = assemble(protocol, [body[i : i + split] for i in range(0, len(body), split)])
    assert isinstance(result, Turn)
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (f"call_{i}", f"tool_{i}", text) for i, text in enumerate(texts)
    ]


# -- the same index with different ids -------------------------------------------------------


def test_same_index_with_different_ids_chat_keeps_two_calls() -> None:  # SGLang
    def frag(call_id: str, name: str | None, args: str) -> dict[str, Any]:
        function = {"arguments": args} | ({"name": name} if name else {})
        return chat_chunk({"index": 0, "id": call_id, "function": function})

    body = sse(
        frag("a", "f", '{"x":'),
        frag("b", "g", '{"y":'),
        frag("a", None, "1}"),
        frag("b", None, "2}"),
        chat_chunk(finish="tool_calls"),
        "[DONE]",
    )
    assert calls("openai-chat", body) == [("a", "f", '{"x":1}'), ("b", "g", '{"y":2}')]


def test_same_index_with_different_ids_responses_keys_on_the_item() -> None:
    def event(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "output_index": 0, **fields}

    def item(n: str, name: str) -> dict[str, Any]:
        return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name}

    delta = "response.function_call_arguments.delta"
    body = sse(
        {"type": "response.created", "response": {"id": "r"}},
        event("response.output_item.added", item=item("a", "f")),
        event("response.output_item.added", item=item("b", "g")),
        event(delta, item_id="fc_a", delta='{"x":'),
        event(delta, item_id="fc_b", delta='{"y":'),
        event(delta, item_id="fc_a", delta="1}"),
        event(delta, item_id="fc_b", delta="2}"),
        {"type": "response.completed", "response": {"id": "r", "status": "completed"}},
    )
    assert calls("openai-responses", body) == [
        ("call_a", "f", '{"x":1}'),
        ("call_b", "g", '{"y":2}'),
    ]


@pytest.mark.parametrize("protocol", ["anthropic", "gemini-interactions"])
def test_same_index_with_different_ids_a_block_started_twice_fails_the_turn(
    protocol: str,
) -> None:
    """Content blocks and steps are opened once: a second start on an index is refused, since
    the fragments that follow could belong to either call."""
    ops = [("call", 0, "t1", "f"), ("args", 0, '{"a":'), ("call", 0, "t2", "g")]
    ops += [("args", 0, '{"b":2}'), ("close", 0)]
    d = assemble(protocol, [wire.BUILDERS[protocol](ops)]).to_dict()
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "error", [])
    assert "started twice" in d["error"]


# -- an id only on the first fragment --------------------------------------------------------


@pytest.mark.parametrize("protocol", FRAGMENTED)
def test_id_only_on_the_first_fragment(protocol: str) -> None:
    """The builders name a call once, on its start; every later fragment has only its key."""
    ops: list[wire.Op] = [("call", 0, "call_A", "f"), ("call", 1, "call_B", "g")]
    ops += [("args", 1, '{"b"'), ("args", 0, '{"a"'), ("args", 0, ":1}"), ("args", 1, ":2}")]
    body = wire.BUILDERS[protocol]([*ops, ("close", 0), ("close", 1)])
    assert body.count(b"call_A") == (2 if protocol == "openai-responses" else 1)  # + the end
    assert calls(protocol, body) == [("call_A", "f", '{"a":1}'), ("call_B", "g", '{"b":2}')]


@pytest.mark.parametrize(
    "later",
    [{"index": 0}, {"index": 0, "id": ""}, {"index": 0, "id": None}, {}],
    ids=["index-only", "empty-id", "null-id", "no-index-no-id"],
)
def test_id_only_on_the_first_fragment_chat_variants(later: dict[str, Any]) -> None:
    """Qwen sends ``"id": ""`` later, others null; Mistral sends neither index nor id."""

    def frag(args: str) -> dict[str, Any]:
        return chat_chunk({**later, "function": {"arguments": args}})

    first = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}
    body = sse(
        chat_chunk(first), frag('{"a"'), frag(":1"), frag("}"), chat_chunk(None, "tool_calls")
    )
    assert calls("openai-chat", body + sse("[DONE]")) == [("call_1", "f", '{"a":1}')]


def test_id_only_on_the_first_fragment_responses_deltas_by_output_index() -> None:
    ops = [("call", 0, "call_A", "f"), ("args", 0, '{"a"'), ("args", 0, ":1}"), ("close", 0)]
    body = wire.responses(ops).replace(b'"item_id": "fc_0", ', b"")
    assert b"item_id" not in body
    assert calls("openai-responses", body) == [("call_A", "f", '{"a":1}')]


# -- arguments split inside a \u escape and inside a surrogate pair --------------------------

ESCAPED = '{"s":"\\u00e9\\ud83d\\ude00\\n\\u2028"}'  # the argument text, escapes and all


@pytest.mark.parametrize("protocol", FRAGMENTED)
@pytest.mark.parametrize("at", range(5, len(ESCAPED) - 2))
def test_arguments_split_inside_a_u_escape(protocol: str, at: int) -> None:
    ops = [("call", 0, "c1", "f"), ("args", 0, ESCAPED[:at]), ("args", 0, ESCAPED[at:])]
    body = wire.BUILDERS[protocol]([*ops, ("close", 0)])
    [(_, _, arguments)] = calls(protocol, body)
    assert arguments == ESCAPED
    assert parse_arguments(arguments) == {"s": "é\U0001f600\n\u2028"}


@pytest.mark.parametrize("protocol", FRAGMENTED)
def test_arguments_split_inside_a_surrogate_pair(protocol: str) -> None:
    """A server that splits UTF-16 (JavaScript) sends each half escaped in its own event;
    joined they are one character, in the arguments and in the text."""
    ops = [("text", "aHIGH"), ("text", "LOWb"), ("call", 0, "c1", "f")]
    ops += [("args", 0, '{"s":"xHIGH'), ("args", 0, 'LOW"}'), ("close", 0)]
    body = wire.BUILDERS[protocol](ops).replace(b"HIGH", b"\\ud83d").replace(b"LOW", b"\\ude00")
    result = assemble(protocol, [body])
    assert isinstance(result, Turn)
    assert result.text == "a\U0001f600b"
    [call] = result.tool_calls
    assert call.arguments == '{"s":"x\U0001f600"}'
    assert parse_arguments(call.arguments) == {"s": "x\U0001f600"}


def test_arguments_split_inside_a_surrogate_pair_gemini_partial_args() -> None:
    def part(fc: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": [{"functionCall": fc}]}}
        return {"candidates": [candidate | ({"finishReason": finish} if finish else {})]}

    def piece(value: str, more: bool) -> dict[str, Any]:
        return {"partialArgs": [{"jsonPath": "$.s", "stringValue": value, "willContinue": more}]}

    body = sse(
        part({"name": "f", "willContinue": True}),
        part(piece("x\ud83d", True) | {"willContinue": True}),
        part(piece("\ude00", False)),
        part({}, "STOP"),
    )
    assert calls("gemini", body)[0][2] == '{"s":"x\U0001f600"}'


def test_a_lone_surrogate_half_stays_and_is_refused_as_arguments() -> None:
    ops = [("call", 0, "c1", "f"), ("args", 0, '{"s":"xHIGH"}'), ("close", 0)]
    body = wire.chat(ops).replace(b"HIGH", b"\\ud83d")
    [(_, _, arguments)] = calls("openai-chat", body)
    with pytest.raises(InvalidArguments, match="surrogate"):
        parse_arguments(arguments)


# -- zero-argument calls as "", null or missing ----------------------------------------------

# How each builder writes a call with no argument fragments, and that field as null or gone.
_NO_ARGS = {
    "openai-chat": b'"arguments": ""',
    "anthropic": b'"input": {}',
    "openai-responses": b'"arguments": ""',
    "gemini-interactions": b'"arguments": {}',
    "gemini": b'"args": {}',
}


def _zero_argument_body(protocol: str, form: str) -> bytes:
    body = wire.BUILDERS[protocol]([("call", 0, "call_Z", "f"), ("close", 0)])
    field = _NO_ARGS[protocol]
    assert field in body
    if form == "null":
        return body.replace(field, field.split(b":")[0] + b": null")
    if form == "missing":
        return body.replace(b", " + field, b"").replace(field + b", ", b"")
    return body


@pytest.mark.parametrize("form", ["empty", "null", "missing"])
@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_zero_argument_calls_as_empty_null_or_missing(protocol: str, form: str) -> None:
    body = _zero_argument_body(protocol, form)
    assert (form == "missing") == (_NO_ARGS[protocol].split(b":")[0] not in body)
    [(_, name, arguments)] = calls(protocol, body)
    assert (name, arguments) == ("f", "{}")
    assert parse_arguments(arguments) == {}
    # ... only at the turn's end: before the terminal event there is no call at all.
    for cut in range(len(body)):
        assert assemble(protocol, [body[:cut]]).to_dict()["tool_calls"] == []
