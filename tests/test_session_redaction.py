"""Secrets never reach a session file; opaque provider data is never touched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent import TurnReader
from tui_agent.session import Redactor, redact_record
from tui_agent.session.event_redaction import _parse, _pieces, redact_events
from tui_agent.session.records import RawEvent
from tui_agent.stream.sse import SSEFramer
from tui_agent.stream.turn import Turn

from . import wire
from .session_samples import ENCRYPTED, GOOGLE_LOOKALIKE, OPAQUE_EVENTS, SIGNATURE, every_record

FIXTURES = Path(__file__).parent / "fixtures"

SHAPES = {
    "sk-ant-api03-" + "x1Y2" * 20: "sk-ant-api03-[REDACTED]",
    "sk-proj-" + "Ab9_" * 30: "sk-proj-[REDACTED]",
    "sk-" + "a" * 48: "sk-[REDACTED]",
    "AIzaSyA-" + "b" * 31: "AIza[REDACTED]",
    "ghp_" + "C" * 36: "ghp_[REDACTED]",
    "github_pat_" + "11ABC" * 10: "github_pat_[REDACTED]",
    "xoxb-123456789012-abcdefghij": "xoxb-[REDACTED]",
    "AKIAIOSFODNN7EXAMPLE": "AKIA[REDACTED]",
    "Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc": "Bearer [REDACTED]",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----": (
        "-----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----"
    ),
}
HARMLESS = [
    "task-force-alpha-bravo-charlie-delta",
    "pip install scikit-learn sk-learn",
    "sha256 " + "0123456789abcdef" * 4,
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "the bearer of bad news",
    "AKIA is not a key without 16 more characters",
    "call_abc123 toolu_01A09q90qw90lq917835lq9",
]


@pytest.mark.parametrize("secret", list(SHAPES))
def test_known_shapes_are_redacted_keeping_only_the_prefix(secret: str) -> None:
    redactor = Redactor()
    text = f"before {secret} after"
    assert redactor.redact(text) == f"before {SHAPES[secret]} after"
    assert redactor.redact(redactor.redact(text)) == redactor.redact(text)  # idempotent


@pytest.mark.parametrize("text", HARMLESS)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor().redact(text) is text


def test_configured_values_are_redacted_exactly_and_short_ones_ignored() -> None:
    redactor = Redactor(["my-local-server-key", "short"])
    assert redactor.redact("k=my-local-server-key;") == "k=[REDACTED];"
    assert redactor.redact("a short word") == "a short word"
    assert redactor.secret_count == 1


def test_a_cut_off_pem_block_is_redacted_and_json_around_it_stays_valid() -> None:
    text = json.dumps({"content": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow+/=\nAbC", "n": 1})
    redacted = Redactor().redact(text)
    assert "MIIEow" not in redacted
    assert json.loads(redacted)["n"] == 1


def test_json_arguments_are_parsed_so_escaping_cannot_hide_a_value() -> None:
    secret = 'pa"ss\\word-42'
    arguments = json.dumps({"password": secret, "n": 1})
    assert secret not in arguments  # escaped in the JSON text
    redacted = Redactor([secret]).redact_json(arguments)
    assert json.loads(redacted) == {"password": "[REDACTED]", "n": 1}
    untouched = json.dumps({"a": 1}, indent=3)
    assert Redactor([secret]).redact_json(untouched) is untouched


def test_opaque_values_are_untouched_and_their_events_byte_exact() -> None:
    redactor = Redactor([GOOGLE_LOOKALIKE[:20]])
    assert redactor.redact(ENCRYPTED) != ENCRYPTED  # as text it would be redacted...
    out = redact_events(OPAQUE_EVENTS, redactor)
    assert all(a is b for a, b in zip(out, OPAQUE_EVENTS, strict=True))  # ...but not here


def test_opaque_names_inside_tool_arguments_are_not_opaque() -> None:
    key = "AIzaSyA-" + "z" * 31
    events = [
        RawEvent(t=0, event="", data=json.dumps({"functionCall": {"args": {"signature": key}}})),
        RawEvent(t=0, event="", data=json.dumps({"type": "thinking", "data": key})),
        RawEvent(t=0, event="", data=json.dumps({"signature": key, "text": key})),
    ]
    out = redact_events(events, Redactor())
    assert key not in out[0].data and key not in out[1].data
    assert json.loads(out[2].data) == {"signature": key, "text": "AIza[REDACTED]"}


def test_real_recorded_streams_are_unchanged() -> None:
    redactor = Redactor(["configured-key-value"])
    paths = sorted(FIXTURES.glob("*/*.sse"))
    assert len(paths) >= 50, "the recorded fixtures were not found"  # a loop over none passes
    for path in paths:
        framer = SSEFramer()
        sse = framer.feed(path.read_bytes()) + framer.close()
        events = [RawEvent(t=0.0, event=e.event, data=e.data) for e in sse]
        out = redact_events(events, redactor)
        assert all(a is b for a, b in zip(out, events, strict=True)), path.name


def _raw(body: bytes) -> list[RawEvent]:
    framer = SSEFramer()
    return [RawEvent(t=0.0, event=e.event, data=e.data) for e in framer.feed(body) + framer.close()]


@pytest.mark.parametrize("protocol", list(wire.BUILDERS))
def test_a_secret_streamed_in_pieces_is_redacted_and_replays_as_redacted(protocol: str) -> None:
    key = "sk-ant-api03-" + "Secret9" * 9
    configured = "my-configured-key-value"
    text = f"Here is {key} and {configured} for you."
    args = json.dumps({"env": f"KEY={key}", "other": configured})
    ops: list[wire.Op] = [("text", text[i : i + 3]) for i in range(0, len(text), 3)]
    ops += [("call", 0, "call_1", "write_env")]
    ops += [("args", 0, args[i : i + 4]) for i in range(0, len(args), 4)]
    ops += [("close", 0)]
    events = _raw(wire.BUILDERS[protocol](ops))
    redactor = Redactor([configured])

    redacted = redact_events(events, redactor)
    dump = "".join(e.data for e in redacted)
    for secret in (key, configured):
        assert secret not in dump
    assert "Secret9" * 2 not in dump  # not even most of it, in any one piece

    reader = TurnReader(protocol)
    for event in redacted:
        reader.feed_event(event.event, event.data)
    turn = reader.close()
    assert isinstance(turn, Turn)
    assert turn.text == redactor.redact(text)
    assert json.loads(turn.tool_calls[0].arguments) == json.loads(redactor.redact_json(args))


def test_redact_record_covers_every_free_text_field_of_every_type() -> None:
    secret = "configured-secret-value-77"
    redactor = Redactor([secret])
    for record in every_record(secret):
        redacted = redact_record(record, redactor)
        dumped = redacted.model_dump_json()
        assert secret not in dumped, record.type
        assert redacted.type == record.type
        if record.type == "assistant":
            assert redacted.raw[: len(OPAQUE_EVENTS)] == OPAQUE_EVENTS
            assert redacted.tool_calls[0].id == "call_1"
            assert SIGNATURE in redacted.raw[1].data
    clean = every_record()
    assert [redact_record(r, redactor) for r in clean] == clean


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "data",
                    "text",
                    "signature",
                    "encrypted_content",
                    "arguments",
                    "input",
                    "k",
                ]
            )
            | st.text(max_size=4),
            inner,
            max_size=5,
        )
        | st.fixed_dictionaries(
            {"type": st.sampled_from(["redacted_thinking", "reasoning.encrypted"]), "data": inner}
        )
    ),
    max_leaves=25,
)


def _rule(node: Any, path: tuple[Any, ...] = (), in_args: bool = False) -> list[Any]:
    """The module docstring's rule, written plainly: every string but the opaque ones."""
    found: list[Any] = []
    if isinstance(node, list):
        for position, value in enumerate(node):
            if isinstance(value, str):
                found.append(((*path, position), value))
            elif isinstance(value, dict | list):
                found += _rule(value, (*path, position), in_args)
        return found
    kind = node.get("type")
    opaque_data = not in_args and kind in ("redacted_thinking", "reasoning.encrypted")
    for key, value in node.items():
        opaque = key in ("encrypted_content", "signature", "thoughtSignature", "thought_signature")
        if not in_args and (opaque or (opaque_data and key == "data")):
            continue
        if isinstance(value, str):
            found.append(((*path, key), value))
        elif isinstance(value, dict | list):
            deeper = in_args or key in ("args", "arguments", "partialArgs", "input")
            found += _rule(value, (*path, key), deeper)
    return found


@settings(max_examples=300, deadline=None)
@given(tree=_JSON.filter(lambda value: isinstance(value, dict | list)))
def test_the_walk_finds_the_strings_the_rule_names(tree: Any) -> None:
    """Every pass over a turn's events walks each with ``_pieces``: the strings it finds, at
    their paths, are the ones the rule names, opaque ones left out (also under a ``type`` that
    is a list or an object)."""
    data = json.dumps(tree)
    walked = sorted((path, text) for path, _, _, text in _pieces(data, _parse(data)))
    assert walked == sorted(_rule(json.loads(data)))
