"""Validation and approval, part 1: hostile arguments never run and never crash anything.

Wrong types, NaN and Infinity, huge integers, deep nesting, extra fields and duplicate keys:
each call is refused before it is offered, the error goes back to the model as the call's
result (read here from the next request the fake provider received), and the tool never runs,
even with every call auto-approved. Nothing on the way raises RecursionError: parsing,
validating, hashing, saving the session, reading it back, and showing it again (replay and
export).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent.agent.events import CallDecided, CallInvalid, LoopEnded, ToolStarted
from tui_agent.approval import ApprovalMode
from tui_agent.export.markdown import render_markdown
from tui_agent.replay.script import ReplayScript
from tui_agent.replay.text_transcript import call_line, transcript_text
from tui_agent.session.records import DecisionRecord, ToolStartRecord
from tui_agent.stream.turn import ToolCall
from tui_agent.tools import (
    InvalidArguments,
    InvalidCall,
    ValidatedCall,
    arguments_digest,
    builtin_registry,
    canonical_json,
    parse_arguments,
    validate_call,
)
from tui_agent.tools.arguments import MAX_NESTING
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import ToolContext
from tui_agent.tools.user_defined import user_tool_specs
from tui_agent.ui.call_preview import build_preview, editable_arguments, json_text
from tui_agent.ui.widgets.replayed_prompt import parse_arguments as recorded_arguments

from ..agent_helpers import agent_over, answer, call_ops, finished, of_type, sent_results
from ..fake_provider import ExpectToolResults, Reply

# A user-defined tool with one parameter of each type; if it ever runs, it leaves ran.txt.
MARK_TOOL: dict[str, Any] = {
    "name": "mark",
    "description": "Leave a mark.",
    "program": "sh",
    "args": [
        "-c",
        'printf "%s " "$@" > ran.txt',
        "mark",
        ["--count", "{count}"],
        ["--ratio", "{ratio}"],
        ["--flag", "{flag}"],
        ["--note", "{note}"],
    ],
    "risk": "write",
    "parameters": {
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "note": {"type": "string", "required": True},
    },
}
DEEP = 100_000


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# Each: the argument string the model sends to "mark", and what the model must be told.
HOSTILE: dict[str, tuple[str, str]] = {
    "wrong type: string for integer": ('{"count": "7"}', "count: input should be a valid integer"),
    "wrong type: float for integer": ('{"count": 7.0}', "count: input should be a valid integer"),
    "wrong type: boolean for integer": ('{"count": true}', "(got a boolean)"),
    "wrong type: integer for boolean": ('{"flag": 1}', "flag: input should be a valid boolean"),
    "wrong type: string for boolean": ('{"flag": "true"}', "flag: input should be a valid bool"),
    "wrong type: string for number": ('{"ratio": "0.5"}', "ratio: input should be a valid number"),
    "wrong type: integer for string": ('{"note": 5}', "note: input should be a valid string"),
    "wrong type: null for a required string": ('{"note": null}', "(got null)"),
    "wrong type: array for string": ('{"note": ["x"]}', "(got an array)"),
    "wrong type: object for string": ('{"note": {"x": 1}}', "(got an object)"),
    "wrong type: not an object": ('["note", "x"]', "must be a JSON object, got an array"),
    "NaN": ('{"ratio": NaN}', "NaN is not valid JSON"),
    "Infinity": ('{"ratio": Infinity}', "Infinity is not valid JSON"),
    "-Infinity": ('{"ratio": -Infinity}', "-Infinity is not valid JSON"),
    "NaN as a string is still a string": ('{"ratio": "NaN"}', "ratio: input should be a valid"),
    "float overflow 1e999": ('{"ratio": 1e999}', "number 1e999 is too large"),
    "huge integer 10**400": ('{"count": 1' + "0" * 400 + "}", "is too large"),
    "huge negative integer": ('{"count": -1' + "0" * 400 + "}", "is too large"),
    "huge integer 2**64": ('{"count": 18446744073709551616}', "integer 18446744073709551616"),
    "huge integer of 5000 digits": ('{"count": 1' + "0" * 5000 + "}", "5001 characters"),
    "huge integer inside a list": ('{"note": [1' + "0" * 30 + "]}", "is too large"),
    "deep nesting 100k": ('{"note": ' + _nested(DEEP) + "}", "nested too deeply"),
    "deep nesting 100k of objects": (
        '{"note": ' + '{"a":' * DEEP + "1" + "}" * DEEP + "}",
        "nested too deeply",
    ),
    "deep nesting just past the limit": ('{"note": ' + _nested(100) + "}", "nested too deeply"),
    "extra field": ('{"note": "x", "mode": "append"}', "mode: unknown argument; expected only"),
    "extra field differing in case": ('{"Note": "x"}', "Note: unknown argument"),
    "extra field with an empty name": ('{"": 1}', ": unknown argument"),
    "extra field like __proto__": ('{"__proto__": {"note": "x"}}', "__proto__: unknown argument"),
    "duplicate key": ('{"note": "a", "note": "b"}', "duplicate key 'note'"),
    "duplicate key spelled with an escape": ('{"note": "a", "\\u006eote": "b"}', "duplicate key"),
    "lone surrogate": ('{"note": "\\ud800"}', "lone UTF-16 surrogate"),
    "trailing text": ('{"note": "x"} {"note": "y"}', "exactly one JSON object"),
}


def _registry() -> ToolRegistry:
    return builtin_registry(user_tool_specs([MARK_TOOL]))


@pytest.mark.parametrize(("arguments", "expected"), HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_arguments_are_an_invalid_call(arguments: str, expected: str) -> None:
    result = validate_call(_registry(), ToolCall(id="c", name="mark", arguments=arguments))
    assert isinstance(result, InvalidCall), result
    assert result.error.startswith("invalid arguments for mark: ")
    assert expected in result.error
    assert len(result.error) <= 2000  # never the whole hostile string echoed back


@pytest.mark.parametrize(("arguments", "expected"), HOSTILE.values(), ids=HOSTILE.keys())
async def test_hostile_arguments_reach_the_model_as_an_error_and_never_run(
    arguments: str, expected: str, tmp_path: Path
) -> None:
    """End to end, everything auto-approved: the next request carries the error."""
    protocol = "openai-chat"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_M", "mark", arguments))),
        answer(protocol, expect=ExpectToolResults({"call_M": expected})),
        mode=ApprovalMode.AUTO_ALL,
        tools=[MARK_TOOL],
    ) as h:
        events = await h.send("mark it")
        [invalid] = of_type(events, CallInvalid)
        assert expected in invalid.error
        assert finished(events)["call_M"].status == "invalid"
        assert not of_type(events, ToolStarted) and not of_type(events, CallDecided)
        assert events[-1] == LoopEnded("complete")
        assert sent_results(protocol, h.server.requests[1].json) == {"call_M": invalid.error}
        assert not (h.workspace / "ran.txt").exists()
        records = h.records()
        assert not of_type(records, ToolStartRecord)
        assert [r.decision for r in of_type(records, DecisionRecord)] == ["invalid"]
        h.assert_session_valid()  # saved and read back, whatever the arguments were
        h.server.assert_all_consumed()


STRING_PROTOCOLS = ["openai-chat", "anthropic", "openai-responses", "gemini-interactions"]


@pytest.mark.parametrize("protocol", STRING_PROTOCOLS)
async def test_every_hostile_call_of_one_turn_gets_its_error_and_the_session_replays(
    protocol: str, tmp_path: Path
) -> None:
    """All of them in one turn next to one valid call; the session is shown again intact."""
    names = list(HOSTILE)
    calls = [(f"call_{i}", "mark", HOSTILE[name][0]) for i, name in enumerate(names)]
    calls.append(("call_ok", "mark", '{"note": "fine"}'))
    expected: dict[str, str | None] = {f"call_{i}": HOSTILE[n][1] for i, n in enumerate(names)}
    expected["call_ok"] = "exit code 0"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*calls)),
        answer(protocol, expect=ExpectToolResults(expected)),
        mode=ApprovalMode.AUTO_ALL,
        tools=[MARK_TOOL],
    ) as h:
        events = await h.send("mark them")
        assert [e.call_id for e in of_type(events, ToolStarted)] == ["call_ok"]
        assert (h.workspace / "ran.txt").read_text() == "--note fine "
        told = sent_results(protocol, h.server.requests[1].json)
        assert len(told) == len(calls)
        h.assert_session_valid()
        loaded = h.store.load(h.writer.session_id)
    # Shown again: replay --headless and the markdown export read every argument string.
    text = transcript_text(ReplayScript.from_records(loaded.records, loaded.problems))
    assert text.count("call mark") == len(calls)
    markdown = render_markdown(loaded)
    assert markdown.count("(not valid JSON)") >= 2  # the two 100k-deep strings, as received


JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


def _hostile_text(value: Any, depth: int, spacing: str) -> str:
    body = json.dumps(value, separators=(spacing, ":"))  # NaN and Infinity as literals
    return '{"note": ' + "[" * depth + body + "]" * depth + "}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=JSON_VALUES,
    depth=st.sampled_from([0, 1, 50, 99, 100, 101, 5_000, DEEP]),
    spacing=st.sampled_from([",", ", "]),
)
def test_any_json_is_either_a_valid_call_with_one_digest_or_an_error(
    value: Any, depth: int, spacing: str
) -> None:
    """Parse, validate, hash and display never raise, whatever the value and its depth."""
    text = _hostile_text(value, depth, spacing)
    try:
        parsed = parse_arguments(text)
    except InvalidArguments as exc:
        assert str(exc)
    else:
        digest = arguments_digest(parsed)
        assert digest == arguments_digest(json.loads(canonical_json(parsed)))
        assert json_text(parsed).plain and editable_arguments(parsed)
    result = validate_call(_registry(), ToolCall(id="c", name="mark", arguments=text))
    if isinstance(result, ValidatedCall):
        assert isinstance(result.arguments["note"], str)
    else:
        assert result.error.startswith("invalid arguments for mark: ")


SAFE_SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text()


@pytest.mark.parametrize(
    "tool",
    ["read_file", "list_dir", "search_text", "write_file", "edit_file", "run_command", "mark"],
)
@settings(max_examples=15, deadline=None)
@given(key=st.text(min_size=1, max_size=12), value=SAFE_SCALARS)
def test_extra_fields_are_refused_by_every_tool(tool: str, key: str, value: Any) -> None:
    registry = _registry()
    spec = registry.get(tool)
    assert spec is not None
    known = {info.alias or name for name, info in spec.args_model.model_fields.items()}
    if key in known:
        return
    result = validate_call(
        registry, ToolCall(id="c", name=tool, arguments=json.dumps({key: value}))
    )
    assert isinstance(result, InvalidCall)
    assert f"{key}: unknown argument; expected only: " in result.error


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": NaN}', "NaN is not valid JSON"),
        ('{"a": Infinity}', "Infinity is not valid JSON"),
        ('{"a": -Infinity}', "-Infinity is not valid JSON"),
        ('{"a": 1e999}', "number 1e999 is too large"),
        ('{"a": -1e999}', "number -1e999 is too large"),
        ('{"a": 9223372036854775808}', "integer 9223372036854775808 is too large"),
        ('{"a": -9223372036854775809}', "is too large"),
        ('{"a": 1' + "0" * 5000 + "}", "too large (the limit is 64 bits)"),
    ],
    ids=["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "2**63", "-2**63-1", "5000 digits"],
)
def test_parse_refuses_nan_infinity_and_huge_numbers(text: str, expected: str) -> None:
    with pytest.raises(InvalidArguments) as err:
        parse_arguments(text)
    assert expected in str(err.value)


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 5_000, 200_000])
def test_deep_nesting_is_refused_not_a_crash(depth: int) -> None:
    with pytest.raises(InvalidArguments, match="nested too deeply"):
        parse_arguments('{"a":' + "[" * depth + "]" * depth + "}")
    with pytest.raises(InvalidArguments, match="nested too deeply"):
        parse_arguments('{"a":' + '{"b":' * depth + "1" + "}" * depth + "}")


def test_a_huge_integer_in_a_builtin_tool_is_refused() -> None:
    registry = builtin_registry()
    for field in ("offset", "limit"):
        text = f'{{"path": "a.txt", "{field}": 1{"0" * 400}}}'
        result = validate_call(registry, ToolCall(id="c", name="read_file", arguments=text))
        assert isinstance(result, InvalidCall) and "too large" in result.error
    largest = f'{{"path": "a.txt", "offset": {2**63 - 1}}}'
    assert isinstance(
        validate_call(registry, ToolCall(id="c", name="read_file", arguments=largest)),
        ValidatedCall,
    )


def test_the_preview_of_deep_but_allowed_arguments_does_not_crash(tmp_path: Path) -> None:
    arguments = parse_arguments('{"note": ' + _nested(99) + "}")
    preview = build_preview("mark", arguments, ToolContext(workspace=tmp_path.resolve()))
    assert preview.body.plain.count("[") == 99


def test_a_recorded_100k_deep_argument_is_shown_as_received() -> None:
    """The replay's prompt and its text transcript read recorded strings that never parsed."""
    text = '{"note": ' + _nested(DEEP) + "}"
    assert recorded_arguments(text) is None
    assert call_line(ToolCall(id="c", name="mark", arguments=text)).startswith("call mark")
