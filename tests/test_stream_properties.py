"""Property tests: any chunking gives the same turn; any cut before the end runs nothing;
interleaved calls each get exactly their own bytes."""

from __future__ import annotations

import json
import re
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent import assemble

from . import wire
from .fixture_cases import CASES, FixtureCase

_EVENT_END = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")


def _chunks(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    edges = [0, *points, len(body)]
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


def terminal_event_end(case: FixtureCase) -> int | None:
    """Byte offset just past the blank line that ends the terminal event, found without the
    code under test; None when the body has no terminal event."""
    body = case.body
    start = 0
    for match in _EVENT_END.finditer(body):
        block = body[start : match.start()].decode("utf-8", "replace")
        data = "\n".join(
            line[5:].removeprefix(" ")
            for line in re.split(r"\r\n|\r|\n", block)
            if line.startswith("data:")
        )
        if data and _is_terminal(case.protocol, data):
            # A lone CR already ends a line (SSE), so "\r\n\r" completes the blank line.
            end = match.end()
            return end - 1 if body[end - 2 : end] == b"\r\n" else end
        start = match.end()
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_one_byte_chunks_give_the_same_turn(case: FixtureCase) -> None:
    body = case.body
    assert assemble(case.protocol, [body[i : i + 1] for i in range(len(body))]).to_dict() == (
        case.expected
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_hostile_boundary_at_once(case: FixtureCase) -> None:
    body = case.body
    chunks = _chunks(body, _hostile_offsets(body))
    assert assemble(case.protocol, chunks).to_dict() == case.expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_rechunking_gives_the_same_turn(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES), label="fixture")
    body = case.body
    hostile = _hostile_offsets(body)
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=40), label="cuts")
    if hostile:
        cuts += data.draw(st.lists(st.sampled_from(hostile), max_size=40), label="hostile")
    assert assemble(case.protocol, _chunks(body, cuts)).to_dict() == case.expected


def _assert_cut(case: FixtureCase, offset: int) -> None:
    result = assemble(case.protocol, [case.body[:offset]]).to_dict()
    assert result["outcome"] == "truncated", (case.name, offset)
    assert result["tool_calls"] == []
    assert result["reason"] in ("cut", "error")


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_cutting_before_the_terminal_event_never_yields_calls(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES), label="fixture")
    end = terminal_event_end(case)
    limit = len(case.body) if end is None else end - 1
    _assert_cut(case, data.draw(st.integers(0, limit), label="offset"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_cut_at_every_event_boundary_and_near_the_end(case: FixtureCase) -> None:
    end = terminal_event_end(case)
    limit = len(case.body) if end is None else end - 1
    offsets = {m.end() for m in _EVENT_END.finditer(case.body) if m.end() <= limit}
    offsets |= set(range(max(0, limit - 300), limit + 1))
    for offset in sorted(offsets):
        _assert_cut(case, offset)
    if end is not None:
        # The terminal event's blank line is the boundary: with it, the turn is what it is.
        assert assemble(case.protocol, [case.body[:end]]).to_dict() == case.expected


def test_terminal_boundaries_are_found_for_complete_fixtures() -> None:
    for case in CASES:
        if case.expected["outcome"] == "complete":
            assert terminal_event_end(case) is not None, case.name


_json_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | _json_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_json_text, inner, max_size=4),
    max_leaves=12,
)
_argument_objects = st.dictionaries(_json_text, _json_values, min_size=1, max_size=5)


def _fragments(draw: st.DrawFn, text: str) -> list[str]:
    cuts = draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12))
    points = sorted({c for c in cuts if 0 < c < len(text)})
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in pairwise(edges)]


@st.composite
def _interleaved_calls(draw: st.DrawFn) -> tuple[list[str], list[wire.Op]]:
    count = draw(st.integers(2, 4))
    texts = [
        json.dumps(draw(_argument_objects), ensure_ascii=draw(st.booleans())) for _ in range(count)
    ]
    queues = [_fragments(draw, text) for text in texts]
    ops: list[wire.Op] = [("call", i, f"call_{i}", f"tool_{i}") for i in range(count)]
    while any(queues):
        i = draw(st.sampled_from([i for i, q in enumerate(queues) if q]))
        ops.append(("args", i, queues[i].pop(0)))
    ops += [("close", i) for i in range(count)]
    return texts, ops


@pytest.mark.parametrize(
    "protocol", ["openai-chat", "anthropic", "openai-responses", "gemini-interactions"]
)
@settings(max_examples=60, deadline=None)
@given(calls=_interleaved_calls(), split=st.integers(1, 64))
def test_interleaved_calls_each_get_exactly_their_own_bytes(
    protocol: str, calls: tuple[list[str], list[wire.Op]], split: int
) -> None:
    texts, ops = calls
    body = wire.BUILDERS[protocol](ops)
    chunks = [body[i : i + split] for i in range(0, len(body), split)]
    result = assemble(protocol, chunks)
    assert result.outcome == "complete"
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [
        (f"call_{i}", f"tool_{i}", text) for i, text in enumerate(texts)
    ]
