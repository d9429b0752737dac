"""Hostile input, stream group (issue 6): argument strings that must never reach a tool.

``{"a":1}{"b":2}``, trailing garbage and duplicate keys. The stream keeps each argument string
exactly as received (nothing repaired, merged or dropped), the one strict parse at the turn's
end refuses it, and the model gets the error as the call's result; the tool never runs.
Duplicate keys inside arguments that a provider sends as a JSON object (Gemini, llama.cpp,
LM Studio, placeholders) are refused too: the event's JSON parser would silently keep one of
the values, and which one differs between JSON readers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent import assemble
from tui_agent.agent.events import CallInvalid, LoopEnded, ToolStarted, TurnTruncated
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
def test_duplicate_keys_in_arguments_sent_as_an_object_fail_the_turn(protocol: str) -> None:
    d = assemble(protocol, [duplicate_keys_as_object(protocol)]).to_dict()
    assert (d["outcome"], d["reason"], d["tool_calls"]) == ("truncated", "error", [])
    assert "repeat the key 'path'" in d["error"]
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
def test_integers_beyond_64_bits_in_an_object_are_refused_never_rounded(
    protocol: str, number: str
) -> None:
    """A fast JSON reader rounds these to floats, so what would be shown and run is not what was
    sent: the turn is refused, like duplicate keys. Integers at the 64-bit edges pass exactly."""
    placeholder, _ = _OBJECT_FIELD[protocol]
    field = placeholder[: placeholder.index(b":") + 2]
    body = wire.BUILDERS[protocol]([("call", 0, "c1", "read_file"), ("close", 0)])

    def with_n(digits: str) -> bytes:
        return body.replace(placeholder, field + b'{"n": ' + digits.encode() + b"}")

    d = assemble(protocol, [with_n(number)]).to_dict()
    assert (d["outcome"], d["tool_calls"]) == ("truncated", [])
    assert "beyond 64 bits" in d["error"]
    for edge in ("18446744073709551615", "-9223372036854775808"):
        result = assemble(protocol, [with_n(edge)])
        assert isinstance(result, Turn)
        assert [c.arguments for c in result.tool_calls] == ['{"n":' + edge + "}"]


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


async def test_duplicate_keys_as_an_object_never_reach_a_tool(tmp_path: Path) -> None:
    async with agent_over(
        "gemini", tmp_path, Reply(duplicate_keys_as_object("gemini")), mode=ApprovalMode.AUTO_ALL
    ) as h:
        events = await h.send("write")
        assert of_type(events, ToolStarted) == []
        [truncated] = of_type(events, TurnTruncated)
        assert "repeat the key 'path'" in truncated.message
        assert of_type(events, LoopEnded)[-1].outcome == "truncated"
        assert [p.name for p in h.workspace.iterdir()] == []
