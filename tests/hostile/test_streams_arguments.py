"""Hostile input, stream group (issue 6): argument strings that must never reach a tool.

``{"a":1}{"b":2}``, trailing garbage and duplicate keys. The stream keeps each argument string
exactly as received (nothing repaired, merged or dropped), the one strict parse at the turn's
end refuses it, and the model gets the error as the call's result; the tool never runs.
Arguments a provider sends as a JSON object (Gemini, llama.cpp, LM Studio, placeholders) are
kept exactly too: the events that may carry them are read by an exact parser, so a repeated key
or an integer beyond 64 bits reaches the strict parse (and the model, as the error) instead of
one JSON reader's guess or a rounded float. An event that slips past that (a key spelled with
escapes) meets the backstop: the turn is refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent import assemble
from tui_agent.agent.events import CallInvalid, LoopEnded, ToolStarted
from tui_agent.approval import ApprovalMode
from tui_agent.providers import PROTOCOLS
from tui_agent.stream.turn import Turn
from tui_agent.tools.arguments import InvalidArguments, parse_arguments
from tui_agent.tools.registry import builtin_registry
from tui_agent.tools.validation import InvalidCall, validate_call

from .. import wire
from ..agent_helpers import agent_over, answer, of_type, sent_results
from ..fake_provider import Reply

FRAGMENTED = ["openai-chat", "anthropic", "openai-responses", "gemini-interactions"]

# (fragments as sent, what the strict parse says)
BAD = {
    "concatenated-objects": (['{"a":1}', '{"b":2}'], "exactly one JSON object"),
    "concatenated-in-one-fragment": (['{"a":1}{"b":2}'], "exactly one JSON object"),
    "trailing-garbage-word": (['{"a":1}', " x"], "exactly one JSON object"),
    "trailing-garbage-brace": (['{"a":', "1}}"], "exactly one JSON object"),
    "trailing-garbage-nul": (['{"a":1}', "\x00"], "exactly one JSON object"),
    "duplicate-keys": (['{"path":"a",', '"path":"b"}'], "duplicate key 'path'"),
    "duplicate-keys-nested": (['{"a":{"k":1,"k":2}}'], "duplicate key 'k'"),
}


@pytest.mark.parametrize("protocol", FRAGMENTED)
@pytest.mark.parametrize("case", list(BAD))
def test_bad_argument_strings_are_kept_exactly_and_refused(protocol: str, case: str) -> None:
    fragments, why = BAD[case]
    ops: list[wire.Op] = [("call", 0, "c1", "write_file")]
    ops += [("args", 0, f) for f in fragments] + [("close", 0)]
    result = assemble(protocol, [wire.BUILDERS[protocol](ops)])
    assert isinstance(result, Turn)
    [call] = result.tool_calls
    assert call.arguments == "".join(fragments)  # no repair, no merge, nothing dropped
    with pytest.raises(InvalidArguments, match=why):
        parse_arguments(call.arguments)
    invalid = validate_call(builtin_registry(), call)
    assert isinstance(invalid, InvalidCall) and why in invalid.error


def test_the_same_complete_arguments_sent_twice_are_kept_once() -> None:
    """The one exception, documented: a server re-sending the whole arguments (OpenRouter)."""
    ops = [("call", 0, "c1", "f"), ("args", 0, '{"a":1}'), ("args", 0, '{"a":1}'), ("close", 0)]
    result = assemble("openai-chat", [wire.chat(ops)])
    assert isinstance(result, Turn) and result.tool_calls[0].arguments == '{"a":1}'


# -- duplicate keys in arguments sent as a JSON object ---------------------------------------

# How each protocol carries whole arguments as an object, written with a second "path" key.
_OBJECT_FIELD = {
    "openai-chat": (b'"arguments": ""', b'"arguments": {"path": "a", "path": "b"}'),
    "anthropic": (b'"input": {}', b'"input": {"path": "a", "path": "b"}'),
    "openai-responses": (b'"arguments": ""', b'"arguments": {"path": "a", "path": "b"}'),
    "gemini-interactions": (b'"arguments": {}', b'"arguments": {"path": "a", "path": "b"}'),
    "gemini": (b'"args": {}', b'"args": {"path": "a", "path": "b"}'),
}


def duplicate_keys_as_object(protocol: str) -> bytes:
    placeholder, duplicated = _OBJECT_FIELD[protocol]
    body = wire.BUILDERS[protocol]([("call", 0, "c1", "write_file"), ("close", 0)])
    assert placeholder in body
    return body.replace(placeholder, duplicated)


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_duplicate_keys_in_arguments_sent_as_an_object_are_kept_and_refused(protocol: str) -> None:
    result = assemble(protocol, [duplicate_keys_as_object(protocol)])
    assert isinstance(result, Turn)
    [call] = result.tool_calls
    assert call.arguments == '{"path":"a","path":"b"}'  # as it came, not one reader's pick
    with pytest.raises(InvalidArguments, match="duplicate key 'path'"):
        parse_arguments(call.arguments)
    # The same object without the repeat is an ordinary call.
    plain = duplicate_keys_as_object(protocol).replace(b'"path": "a", ', b"")
    result = assemble(protocol, [plain])
    assert isinstance(result, Turn)
    assert [c.arguments for c in result.tool_calls] == ['{"path":"b"}']


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
@pytest.mark.parametrize(
    "number",
    ["18446744073709551616", "-9223372036854775809", "1" * 400],
    ids=["2**64", "-2**63-1", "400-digits"],
)
def test_integers_beyond_64_bits_in_an_object_are_kept_exactly_never_rounded(
    protocol: str, number: str
) -> None:
    """A fast JSON reader rounds these to floats, so what would be shown and run is not what was
    sent: they are kept digit for digit, and the strict parse refuses them. Integers at the
    64-bit edges are kept as they are too."""
    placeholder, _ = _OBJECT_FIELD[protocol]
    field = placeholder[: placeholder.index(b":") + 2]
    body = wire.BUILDERS[protocol]([("call", 0, "c1", "read_file"), ("close", 0)])

    def arguments(digits: str) -> str:
        new = field + b'{"n": ' + digits.encode() + b"}"
        result = assemble(protocol, [body.replace(placeholder, new)])
        assert isinstance(result, Turn)
        [call] = result.tool_calls
        return call.arguments

    assert arguments(number) == '{"n":' + number + "}"
    with pytest.raises(InvalidArguments, match="too large"):
        parse_arguments(arguments(number))
    for edge in ("18446744073709551615", "9223372036854775807", "-9223372036854775808"):
        assert arguments(edge) == '{"n":' + edge + "}"  # what the fast reader also reads
    for edge in ("9223372036854775807", "-9223372036854775808"):
        parse_arguments(arguments(edge))  # within what the tools take


# Each protocol's object field with its first letter written as a JSON escape: the same key to
# every JSON reader, but not to the cheap test that picks events for the exact parser.
_ESCAPED = {
    "openai-chat": (b'"arguments"', b'"\\u0061rguments"'),
    "anthropic": (b'"input"', b'"\\u0069nput"'),
    "openai-responses": (b'"arguments"', b'"\\u0061rguments"'),
    "gemini-interactions": (b'"arguments"', b'"\\u0061rguments"'),
}


@pytest.mark.parametrize("protocol", list(_ESCAPED))
@pytest.mark.parametrize("inner", [b'{"path": "a", "path": "b"}', b'{"n": 18446744073709551616}'])
def test_an_object_the_exact_parser_was_not_given_fails_the_turn(
    protocol: str, inner: bytes
) -> None:
    """The backstop: an escaped field name slips past the cheap test, so the event is read by
    the fast parser; the repeated key or the big integer is found anyway and the turn refused."""
    placeholder, _ = _OBJECT_FIELD[protocol]
    plain, escaped = _ESCAPED[protocol]
    object_field = placeholder[: placeholder.index(b":") + 2].replace(plain, escaped)
    body = wire.BUILDERS[protocol]([("call", 0, "c1", "write_file"), ("close", 0)])
    d = assemble(protocol, [body.replace(placeholder, object_field + inner)]).to_dict()
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "error", [])
    assert "repeat the key 'path'" in d["error"] or "beyond 64 bits" in d["error"]


# -- end to end: none of them reaches a tool -------------------------------------------------


def _bad_calls() -> list[wire.Op]:
    ops: list[wire.Op] = []
    for index, case in enumerate(BAD):
        ops.append(("call", index, f"call_{index}", "write_file"))
        ops += [("args", index, f) for f in BAD[case][0]] + [("close", index)]
    return ops


@pytest.mark.parametrize("protocol", FRAGMENTED)
async def test_invalid_arguments_never_reach_a_tool(protocol: str, tmp_path: Path) -> None:
    async with agent_over(
        protocol,
        tmp_path,
        Reply(_bad_calls()),
        answer(protocol),
        mode=ApprovalMode.AUTO_ALL,
    ) as h:
        events = await h.send("write")
        assert of_type(events, ToolStarted) == []
        invalid = {e.call_id: e.error for e in of_type(events, CallInvalid)}
        assert len(invalid) == len(BAD)
        results = sent_results(protocol, h.server.requests[-1].json)
        for index, (_, why) in enumerate(BAD.values()):
            assert why in invalid[f"call_{index}"] and why in results[f"call_{index}"]
        assert [p.name for p in h.workspace.iterdir()] == []
        h.server.assert_all_consumed()


@pytest.mark.parametrize(
    ("inner", "why"),
    [
        (b'{"path": "a", "path": "b"}', "duplicate key 'path'"),
        (b'{"path": "a", "n": 18446744073709551616}', "integer 18446744073709551616 is too large"),
        (b'{"path": "a", "n": 1e999999}', "Infinity is not valid JSON"),
    ],
    ids=["repeated-key", "2**64", "1e999999"],
)
async def test_bad_objects_never_reach_a_tool_and_the_model_is_told(
    tmp_path: Path, inner: bytes, why: str
) -> None:
    body = duplicate_keys_as_object("gemini").replace(b'{"path": "a", "path": "b"}', inner)
    async with agent_over(
        "gemini", tmp_path, Reply(body), answer("gemini"), mode=ApprovalMode.AUTO_ALL
    ) as h:
        events = await h.send("write")
        assert of_type(events, ToolStarted) == []
        [invalid] = of_type(events, CallInvalid)
        assert why in invalid.error
        [(_, result)] = sent_results("gemini", h.server.requests[-1].json).items()
        assert why in result and invalid.error in result
        assert of_type(events, LoopEnded)[-1].outcome == "complete"
        assert [p.name for p in h.workspace.iterdir()] == []
