"""Hostile input, stream group (issue 6): bytes into events, and where a turn ends.

Random re-chunking of every fixture; a cut at every byte offset; U+2028/U+2029/U+0085 inside
JSON data; CR-only line ends and a BOM; NUL in ids; unknown events; garbage after the terminal
event. The fixtures are the real recorded streams in tests/fixtures with their hand-checked
.expected.json; the synthetic streams come from tests/wire.py in all five protocols.
"""

from __future__ import annotations

import json
import re
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent import TurnReader, assemble
from tui_agent.providers import PROTOCOLS
from tui_agent.stream.turn import Turn
from tui_agent.tools.arguments import parse_arguments

from .. import wire
from ..fixture_cases import CASES, FixtureCase

_EVENT_END = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")
OPS: list[wire.Op] = [
    ("text", "ok"),
    ("call", 0, "c1", "f"),
    ("call", 1, "c2", "g"),
    ("args", 0, '{"a":'),
    ("args", 1, '{"b":"é"}'),
    ("args", 0, "1}"),
    ("close", 0),
    ("close", 1),
]


def _chunks(body: bytes, cuts: list[int]) -> list[bytes]:
    edges = [0, *sorted({c for c in cuts if 0 < c < len(body)}), len(body)]
    return [body[a:b] for a, b in pairwise(edges)]


def _hostile_offsets(body: bytes) -> list[int]:
    """Offsets inside CRLF, inside multi-byte characters, inside \\u escapes, before a colon."""
    offsets = [m.start() + 1 for m in re.finditer(rb"\r\n", body)]
    offsets += [i for i, b in enumerate(body) if b & 0xC0 == 0x80]
    for m in re.finditer(rb"\\u", body):
        offsets += range(m.start() + 1, m.start() + 6)
    offsets += [m.start() + 1 for m in re.finditer(rb'":', body)]
    return offsets


def _is_terminal(protocol: str, data: str) -> bool:
    if protocol == "openai-chat":
        return data.strip() == "[DONE]"
    try:
        payload = json.loads(data)
    except ValueError:
        return False
    if not isinstance(payload, dict):
        return False
    if protocol == "openai-responses":
        return payload.get("type") in (
            "response.completed",
            "response.incomplete",
            "response.failed",
        )
    if protocol == "anthropic":
        return payload.get("type") == "message_stop"
    if protocol == "gemini-interactions":
        return payload.get("event_type") == "interaction.completed"
    candidates = payload.get("candidates") or [{}]
    return bool(candidates[0].get("finishReason"))


def terminal_event_end(protocol: str, body: bytes) -> int | None:
    """Byte offset just past the blank line that ends the terminal event, found without the
    code under test; None when the body has no terminal event."""
    start = 0
    for match in _EVENT_END.finditer(body):
        block = body[start : match.start()].decode("utf-8", "replace")
        data = "\n".join(
            line[5:].removeprefix(" ")
            for line in re.split(r"\r\n|\r|\n", block)
            if line.startswith("data:")
        )
        if data and _is_terminal(protocol, data):
            # A lone CR already ends a line (SSE), so "\r\n\r" completes the blank line.
            end = match.end()
            return end - 1 if body[end - 2 : end] == b"\r\n" else end
        start = match.end()
    return None


# -- random re-chunking of every fixture -----------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_rechunking_every_fixture_one_byte_at_a_time(case: FixtureCase) -> None:
    body = case.body
    chunks = [body[i : i + 1] for i in range(len(body))]
    assert assemble(case.protocol, chunks).to_dict() == case.expected


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_rechunking_every_fixture_at_every_hostile_boundary(case: FixtureCase) -> None:
    body = case.body
    assert assemble(case.protocol, _chunks(body, _hostile_offsets(body))).to_dict() == (
        case.expected
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_rechunking_of_every_fixture(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES), label="fixture")
    body = case.body
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=40), label="cuts")
    if hostile := _hostile_offsets(body):
        cuts += data.draw(st.lists(st.sampled_from(hostile), max_size=40), label="hostile")
    assert assemble(case.protocol, _chunks(body, cuts)).to_dict() == case.expected


# -- cut at every byte offset ----------------------------------------------------------------


def _assert_cuts(protocol: str, body: bytes, offsets: range | list[int], name: str) -> None:
    for offset in offsets:
        d = assemble(protocol, [body[:offset]]).to_dict()
        assert (d["outcome"], d["tool_calls"]) == ("truncated", []), (name, offset)
        assert d["reason"] in ("cut", "error"), (name, offset)


def _limit(protocol: str, body: bytes) -> int:
    end = terminal_event_end(protocol, body)
    return len(body) if end is None else end - 1


SMALL = [case for case in CASES if len(case.body) <= 4096]


@pytest.mark.parametrize("case", SMALL, ids=lambda c: c.name)
def test_cut_at_every_byte_offset_of_every_small_fixture(case: FixtureCase) -> None:
    body = case.body
    _assert_cuts(case.protocol, body, range(_limit(case.protocol, body) + 1), case.name)


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_cut_at_every_byte_offset_of_a_stream_with_calls(protocol: str, line_end: bytes) -> None:
    body = wire.BUILDERS[protocol](OPS).replace(b"\n", line_end)
    end = terminal_event_end(protocol, body)
    assert end is not None and isinstance(assemble(protocol, [body[:end]]), Turn)
    _assert_cuts(protocol, body, range(end), protocol)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_cut_at_every_event_boundary_and_every_byte_near_the_end(case: FixtureCase) -> None:
    """The larger fixtures: every event boundary and every offset in the last 300 bytes
    before the terminal event is complete."""
    body, limit = case.body, _limit(case.protocol, case.body)
    offsets = {m.end() for m in _EVENT_END.finditer(body)}
    offsets |= set(range(max(0, limit - 300), limit + 1))
    _assert_cuts(case.protocol, body, sorted(o for o in offsets if 0 <= o <= limit), case.name)
    if (end := terminal_event_end(case.protocol, body)) is not None:
        # With the terminal event's blank line the turn is what it is.
        assert assemble(case.protocol, [body[:end]]).to_dict() == case.expected


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_cut_at_any_byte_offset_of_any_fixture(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES), label="fixture")
    limit = _limit(case.protocol, case.body)
    offset = data.draw(st.integers(0, limit), label="offset")
    _assert_cuts(case.protocol, case.body, [offset], case.name)


def test_every_complete_fixture_has_a_terminal_boundary() -> None:
    for case in CASES:
        if case.expected["outcome"] == "complete":
            assert terminal_event_end(case.protocol, case.body) is not None, case.name


# -- U+2028/U+2029/U+0085 inside JSON data; CR-only line ends, BOM ---------------------------

SEPARATORS = "a\u2028b\u2029c\x85d\x1ce\x1df\x1eg\x0bh\x0ci"  # str.splitlines() splits on all


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n", b"\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_unicode_line_separators_inside_json_data(protocol: str, line_end: bytes) -> None:
    args = json.dumps({"s": SEPARATORS}, ensure_ascii=False)
    ops = [("text", SEPARATORS), ("call", 0, "c1", "f"), ("args", 0, args), ("close", 0)]
    body = wire.BUILDERS[protocol](ops).replace(b"\n", line_end)
    assert "\u2028".encode() in body and "\x85".encode() in body  # raw, not escaped
    result = assemble(protocol, [body[i : i + 7] for i in range(0, len(body), 7)])
    assert isinstance(result, Turn)
    assert result.text == SEPARATORS
    assert parse_arguments(result.tool_calls[0].arguments) == {"s": SEPARATORS}


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_cr_only_line_ends_and_a_bom(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS)
    expected = assemble(protocol, [body]).to_dict()
    assert expected["outcome"] == "complete"
    bom = b"\xef\xbb\xbf"
    cr = body.replace(b"\n", b"\r")
    mixed = b"".join(
        part + (b"\r\n", b"\n", b"\r")[i % 3] for i, part in enumerate(body.split(b"\n")[:-1])
    )
    for variant in (bom + body, cr, bom + cr, mixed):
        assert assemble(protocol, [variant]).to_dict() == expected
        one_byte = [variant[i : i + 1] for i in range(len(variant))]  # CR\n and the BOM split
        assert assemble(protocol, one_byte).to_dict() == expected


def test_a_bom_after_the_start_is_data_not_a_mark() -> None:
    body = wire.chat([("text", "\ufeffx")], stop="stop")
    assert assemble("openai-chat", [b"\xef\xbb\xbf" + body]).to_dict()["text"] == "\ufeffx"


# -- NUL in ids ------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_nul_in_call_ids_keeps_them_exact_and_distinct(protocol: str) -> None:
    """Ids that differ only after a NUL are two calls, each with its own id and bytes."""
    ops: list[wire.Op] = [("call", 0, "call_1", "f"), ("call", 1, "call_1\x00x", "g")]
    ops += [("args", 0, '{"a":1}'), ("args", 1, '{"b":2}'), ("close", 0), ("close", 1)]
    body = wire.BUILDERS[protocol](ops)
    assert b"\\u0000" in body
    result = assemble(protocol, [body])
    assert isinstance(result, Turn)
    assert [(c.id, c.arguments) for c in result.tool_calls] == [
        ("call_1", '{"a":1}'),
        ("call_1\x00x", '{"b":2}'),
    ]
    json.dumps(result.to_dict())


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_nul_in_sse_id_fields_is_ignored(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS)
    expected = assemble(protocol, [body]).to_dict()
    noisy = body.replace(b"data: ", b"id: ev\x00il\ndata: ").replace(b"\n\n", b"\nid: \x00\n\n")
    assert assemble(protocol, [noisy]).to_dict() == expected


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_a_raw_nul_inside_json_data_fails_the_turn(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS).replace(b'"c1"', b'"c\x001"')
    d = assemble(protocol, [body]).to_dict()
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "error", [])


# -- unknown events; garbage after the terminal event ----------------------------------------


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_unknown_events_are_ignored(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS)
    plain = assemble(protocol, [body]).to_dict()
    extra = (
        b": keep-alive comment\n\n"
        b'event: vendor.unknown\ndata: {"type":"x.y","event_type":"x.y","index":0}\n\n'
        b"event: vendor.ping\ndata: not json at all\n\n"
        b'data: {"type":"vendor.thing","delta":{"type":"mystery"},"choices":[]}\n\n'
        b"retry: 10\nfoo: bar\n\n"
    )
    noisy = body.replace(b"\n\n", b"\n\n" + extra)
    assert noisy.count(b"vendor.unknown") > 3
    assert assemble(protocol, [noisy]).to_dict() == plain


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_unknown_fields_in_known_events_are_ignored(protocol: str) -> None:
    body = wire.BUILDERS[protocol](OPS)
    noisy = body.replace(b"data: {", b'data: {"x_vendor": {"index": 9, "id": "z"}, ')
    assert assemble(protocol, [noisy]).to_dict() == assemble(protocol, [body]).to_dict()


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
@pytest.mark.parametrize(
    "garbage",
    [b"\x00\xff garbage", b"data: {broken\n\n", b"<html>", None],
    ids=["binary", "malformed-event", "html", "a-late-call"],
)
def test_trailing_garbage_after_the_terminal_event_is_ignored(
    protocol: str, garbage: bytes | None
) -> None:
    body = wire.BUILDERS[protocol](OPS)
    if garbage is None:
        garbage = wire.BUILDERS[protocol]([("call", 5, "c9", "evil"), ("args", 5, "{}")])
    reader = TurnReader(protocol)
    reader.feed(body)
    assert reader.ended
    assert reader.feed(garbage) == []
    assert reader.close().to_dict() == assemble(protocol, [body]).to_dict()
    assert assemble(protocol, [body + garbage]).to_dict() == assemble(protocol, [body]).to_dict()
