"""Bad bytes end a turn as truncated with a reason; they never crash and never yield calls."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent import assemble
from tui_agent.providers import PROTOCOLS

from . import wire

OPS = [("text", "ok"), ("call", 0, "c1", "f"), ("args", 0, '{"a":1}'), ("close", 0)]


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_malformed_json_inside_the_stream_fails_the_turn(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS)
    broken = body.replace(b"data: {", b'data: {"oops', 2)
    d = assemble(protocol, [broken]).to_dict()
    assert d["outcome"] == "truncated" and d["tool_calls"] == []
    assert d["reason"] == "error" and "malformed" in d["error"]


def test_invalid_utf8_and_escape_sequences_pass_through_as_data() -> None:
    body = wire.chat([("text", "\x1b]52;c;aGk=\x07 [@click=app.quit]")], stop="stop")
    body = body.replace(b"aGk=", b"aGk=\xff\xfe")
    d = assemble("openai-chat", [body]).to_dict()
    assert d["outcome"] == "complete"
    assert d["text"] == "\x1b]52;c;aGk=\ufffd\ufffd\x07 [@click=app.quit]"


def test_lone_surrogate_escapes_are_accepted() -> None:
    body = b'data: {"id":"x","choices":[{"index":0,"delta":{"content":"\\ud83d"}}]}\n\n'
    body += wire.chat([("text", "!")], stop="stop")
    assert assemble("openai-chat", [body]).to_dict()["text"] == "\ud83d!"


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_deeply_nested_and_odd_values_never_crash(protocol: str) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    odd = [
        deep,
        '{"type": ["x"], "index": [1], "event_type": {"a": 1}, "candidates": 7}',
        '{"choices": [{"delta": {"tool_calls": [{"index": [0], "function": 3}]}}]}',
        '{"type":"content_block_start","index":{"a":1},"content_block":{"type":"tool_use"}}',
        '{"type":"step.start","index":[2],"step":{"type":"function_call","content":5}}',
        '{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":'
        '[{"jsonPath":"$.a[99999999999]","stringValue":"x"}]}}]}}]}',
        "[DONE]",
        "null",
    ]
    body = "".join(f"data: {item}\n\n" for item in odd).encode()
    result = assemble(protocol, [body])
    assert result.outcome == "truncated"
    assert result.to_dict()["tool_calls"] == []


@settings(max_examples=200, deadline=None)
@given(
    protocol=st.sampled_from(list(PROTOCOLS)),
    junk=st.binary(max_size=300),
    at=st.integers(0, 10_000),
)
def test_random_bytes_spliced_into_a_stream_never_crash(
    protocol: str, junk: bytes, at: int
) -> None:
    body = wire.BUILDERS[protocol](OPS)
    at %= len(body) + 1
    result = assemble(protocol, [body[:at] + junk + body[at:]])
    assert result.outcome in ("complete", "truncated")
    json.dumps(result.to_dict())


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(_values)
@pytest.mark.heavy
def test_compact_serialization_is_exactly_the_stdlib_one(value: object) -> None:
    from tui_agent.stream.jsonparse import dumps_compact

    assert dumps_compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
