"""Bad bytes end a turn as truncated with a reason; they never crash and never yield calls."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent import TurnReader, assemble
from tui_agent.providers import PROTOCOLS

from . import wire

OPS = [("text", "ok"), ("call", 0, "c1", "f"), ("args", 0, '{"a":1}'), ("close", 0)]


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
@pytest.mark.parametrize(
    "body",
    [b"", b"<html><body>502 Bad Gateway</body></html>", b"\x00\x00\xff\xfe", b'data: {"a":1'],
    ids=["empty", "html", "binary", "unterminated"],
)
def test_non_sse_bodies_are_turns_cut_before_they_began(protocol: str, body: bytes) -> None:
    d = assemble(protocol, [body]).to_dict()
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "cut", [])


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_malformed_json_inside_the_stream_fails_the_turn(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS)
    broken = body.replace(b"data: {", b'data: {"oops', 2)
    d = assemble(protocol, [broken]).to_dict()
    assert d["outcome"] == "truncated" and d["tool_calls"] == []
    assert d["reason"] == "error" and "malformed" in d["error"]


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_byte_order_mark_and_bare_cr_line_endings(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS)
    expected = assemble(protocol, [body]).to_dict()
    assert expected["outcome"] == "complete"
    assert assemble(protocol, [b"\xef\xbb\xbf" + body]).to_dict() == expected
    assert assemble(protocol, [body.replace(b"\n", b"\r")]).to_dict() == expected
    bom_split = [b"\xef", b"\xbb", b"\xbf" + body[:3], body[3:]]
    assert assemble(protocol, bom_split).to_dict() == expected


def test_unicode_line_separators_inside_json_do_not_split_lines() -> None:
    text = "a\u2028b\u2029c\x85d\x1ce"
    body = wire.chat([("text", text)], stop="stop")
    assert "\u2028".encode() in body
    assert assemble("openai-chat", [body]).to_dict()["text"] == text


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


def test_events_after_the_terminal_event_are_ignored() -> None:
    ops = [("call", 0, "c1", "f"), ("args", 0, "{}"), ("close", 0)]
    body = wire.anthropic(ops)
    late = wire.anthropic([("call", 5, "c9", "evil"), ("args", 5, "{}")])
    reader = TurnReader("anthropic")
    reader.feed(body)
    assert reader.ended
    assert reader.feed(late) == []
    assert [c.name for c in reader.close().tool_calls] == ["f"]


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(_values)
def test_compact_serialization_is_exactly_the_stdlib_one(value: object) -> None:
    from tui_agent.stream.jsonparse import dumps_compact

    assert dumps_compact(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_an_event_larger_than_the_limit_ends_the_turn_with_a_clear_error() -> None:
    huge = "x" * 5000
    body = wire.chat([("text", "start"), ("text", huge)], stop="stop")
    reader = TurnReader("openai-chat", max_event_bytes=2048)
    for i in range(0, len(body), 512):
        reader.feed(body[i : i + 512])
        if reader.ended:
            break
    assert reader.ended
    d = reader.close().to_dict()
    assert (d["outcome"], d["reason"]) == ("truncated", "error")
    assert "larger than 2048 bytes" in d["error"]
    assert reader.feed(body) == []  # nothing more is read or kept


def test_events_below_the_limit_of_any_total_size_are_fine() -> None:
    body = wire.chat([("text", "y" * 1000) for _ in range(50)], stop="stop")
    assert len(body) > 20_000
    reader = TurnReader("openai-chat", max_event_bytes=4096)
    for i in range(0, len(body), 700):
        reader.feed(body[i : i + 700])
    assert reader.close().to_dict()["outcome"] == "complete"
