"""Differential tests: tui_agent.assemble against the official SDKs' own accumulators.

The same bytes go to ``assemble`` and to openai's chat and responses stream helpers and
anthropic's message stream (see ``sdk_accumulators``). On streams that end normally both must
report the same calls (id, name, arguments), text, reasoning and stop reason. Where an SDK
mishandles a compatible server's quirk, the fixture is listed in ``KNOWN_DIFFERENCES`` with the
exact SDK result, so the test fails if the difference changes. Synthetic streams (hypothesis) in
each wire format add random names, JSON arguments and fragmenting, 1-4 parallel calls and random
byte chunking. On a body that stops before its terminal event the chat and message helpers hand
back the partial turn as final and the responses helper's event stream ends without an error
(only its ``get_final_response()`` refuses); ``assemble`` reports it as cut, with no calls.
"""

from __future__ import annotations

import itertools
import json
import re
import string
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent import assemble

from . import sdk_accumulators
from .fixture_cases import CASES, FixtureCase
from .sdk_accumulators import SDK_ACCUMULATORS, SdkCall, SdkTurn

COMPLETE_CASES = [
    case
    for case in CASES
    if case.protocol in SDK_ACCUMULATORS and case.expected["outcome"] == "complete"
]
CASE_BY_NAME = {case.name: case for case in CASES}


def assembled_calls(protocol: str, result: Any) -> list[tuple[str, str, Any]]:
    """assemble's calls in the SDK's terms: Anthropic's SDK keeps only the parsed input."""
    parse = json.loads if protocol == "anthropic" else str
    return [(call.id, call.name, parse(call.arguments)) for call in result.tool_calls]


def sdk_calls(sdk: SdkTurn) -> list[tuple[str, str, Any]]:
    return [(call.id, call.name, call.arguments) for call in sdk.tool_calls]


def assert_same_turn(protocol: str, result: Any, sdk: SdkTurn) -> None:
    assert result.outcome == "complete"
    assert assembled_calls(protocol, result) == sdk_calls(sdk)
    assert result.text == sdk.text
    assert result.reasoning == sdk.reasoning
    assert result.stop_reason == sdk.stop_reason


# -- recorded streams -------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownDifference:
    reason: str
    raises: type[Exception] | None = None  # the SDK fails on the stream with this error
    message: str = ""  # matching this
    sdk_calls: tuple[SdkCall, ...] = ()  # or the SDK's calls, exactly


KNOWN_DIFFERENCES = {
    "openai-chat/mistral-whole-args-one-chunk": KnownDifference(
        "Mistral sends its tool call without `index`; the SDK's accumulate_delta indexes by None",
        raises=TypeError,
        message="list indices must be integers or slices, not NoneType",
    ),
    "openai-chat/openrouter-novita-kimi-id-repeated-no-finish-reason": KnownDifference(
        "OpenRouter repeats id and name on each fragment; the SDK concatenates them like text",
        sdk_calls=(SdkCall("00", "llm_versionllm_version", "{}"),),
    ),
}


def test_known_differences_are_complete_recordings() -> None:
    names = {case.name for case in COMPLETE_CASES}
    assert set(KNOWN_DIFFERENCES) <= names
    assert len(COMPLETE_CASES) == 35


@pytest.mark.parametrize("case", COMPLETE_CASES, ids=lambda c: c.name)
def test_recording_matches_sdk_accumulator(case: FixtureCase) -> None:
    result = assemble(case.protocol, [case.body])
    assert result.to_dict()["tool_calls"] == case.expected["tool_calls"]
    accumulate = SDK_ACCUMULATORS[case.protocol]
    known = KNOWN_DIFFERENCES.get(case.name)
    if known is None:
        assert_same_turn(case.protocol, result, accumulate([case.body]))
    elif known.raises is not None:
        with pytest.raises(known.raises, match=re.escape(known.message)):
            accumulate([case.body])
    else:
        sdk = accumulate([case.body])
        assert sdk.tool_calls == known.sdk_calls, known.reason
        assert sdk_calls(sdk) != assembled_calls(case.protocol, result)
        agreed = (result.text, result.reasoning, result.stop_reason)
        assert agreed == (sdk.text, sdk.reasoning, sdk.stop_reason), "only the calls differ"


# -- bodies that stop before their terminal event ---------------------------------------------


def cut_before(body: bytes, marker: bytes) -> bytes:
    """The body up to the end of the last whole SSE event before the one containing marker."""
    at = body.index(marker)
    return body[: body.rindex(b"\n\n", 0, at) + 2]


def assert_cut(protocol: str, body: bytes, pending: list[str]) -> None:
    result = assemble(protocol, [body]).to_dict()
    assert (result["outcome"], result["reason"], result["tool_calls"]) == ("truncated", "cut", [])
    assert [call["name"] for call in result["pending_calls"]] == pending


def test_chat_sdk_accepts_a_body_cut_before_done() -> None:
    """The chat helper returns a completion (finish_reason None) with half an argument string."""
    body = CASE_BY_NAME["openai-chat/openai-gpt4o-parallel-2calls-fragmented"].body
    body = cut_before(body, b"SDAQ")
    with sdk_accumulators.chat_stream([body]) as stream:
        completion = stream.get_final_completion()
    choice = completion.choices[0]
    assert choice.finish_reason is None
    arguments = [call.function.arguments for call in choice.message.tool_calls or []]
    assert arguments == [
        '{"city": "Edinburgh", "country": "GB", "units": "c"}',
        '{"ticker": "AAPL", "exchange": "NA',
    ]
    assert_cut("openai-chat", body, ["GetWeatherArgs", "get_stock_price"])


def test_responses_sdk_streams_a_cut_body_to_its_end_without_error() -> None:
    """The responses helper's iteration ends quietly, its last delta event showing half the
    arguments as the call's snapshot; only ``get_final_response()`` notices the missing
    ``response.completed``."""
    body = CASE_BY_NAME["openai-responses/gpt4o-function-call"].body
    body = cut_before(body, b'"delta":"France"')
    with sdk_accumulators.responses_stream([body]) as stream:
        events = list(stream)
        deltas = [e for e in events if e.type == "response.function_call_arguments.delta"]
        assert deltas[-1].snapshot == '{"country":"'
        with pytest.raises(RuntimeError, match=r"`response\.completed`"):
            stream.get_final_response()
    assert_cut("openai-responses", body, ["get_capital"])


def test_anthropic_sdk_accepts_a_body_cut_before_message_stop() -> None:
    """The message stream returns a message (stop_reason None) whose cut-off tool input was
    partially parsed: the unfinished string is dropped and the call reads as ``{}``."""
    body = CASE_BY_NAME["anthropic/sonnet4-text-then-tool-use"].body
    body = cut_before(body, b'"partial_json":"is')
    with sdk_accumulators.messages_stream([body]) as stream:
        message = stream.get_final_message()
    assert message.stop_reason is None
    calls = [(block.name, block.input) for block in message.content if block.type == "tool_use"]
    assert calls == [("get_weather", {})]
    assert_cut("anthropic", body, ["get_weather"])


# -- synthetic streams in each protocol's wire format ------------------------------------------


@dataclass(frozen=True)
class GenCall:
    id: str
    name: str
    arguments: str  # the complete argument string
    fragments: tuple[str, ...]  # how it is streamed


@dataclass(frozen=True)
class GenTurn:
    text_parts: tuple[str, ...]
    calls: tuple[GenCall, ...]
    schedule: tuple[int, ...]  # the call each argument fragment belongs to, in wire order

    def fragments(self) -> list[tuple[int, str, bool, bool]]:
        """(call, fragment, first of its call, last of its call) in wire order."""
        seen = [0] * len(self.calls)
        out = []
        for index in self.schedule:
            fragments, at = self.calls[index].fragments, seen[index]
            seen[index] += 1
            out.append((index, fragments[at], at == 0, at == len(fragments) - 1))
        return out


def split_at(text: str, cuts: list[int]) -> tuple[str, ...]:
    bounds = [0, *sorted(set(cuts)), len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(bounds) if a < b)


_TRICKY = st.sampled_from(
    ['"', "\\", "\n", "\r\n", "\t", "\x00", "\u2028", "é", "日本語", "😀", "\\u0041", "}", '{"a":']
)
_STRINGS = st.one_of(st.text(max_size=12), st.lists(_TRICKY, max_size=4).map("".join))
_NUMBERS = st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
_SCALARS = st.none() | st.booleans() | _NUMBERS | _STRINGS
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_STRINGS, inner, max_size=3),
    max_leaves=10,
)
_ARGUMENTS = st.dictionaries(_STRINGS, _VALUES, max_size=5)
_NAME_CHARS = string.ascii_letters + string.digits + "_-."
_NAMES = st.text(_NAME_CHARS, min_size=1, max_size=40) | st.text(min_size=1, max_size=12)
_ID_SUFFIXES = st.text(string.ascii_letters + string.digits, max_size=24)


@st.composite
def text_parts(draw: st.DrawFn) -> tuple[str, ...]:
    text = draw(st.text(max_size=30))
    return split_at(text, draw(st.lists(st.integers(0, len(text)), max_size=3)))


@st.composite
def gen_calls(draw: st.DrawFn, id_prefix: str) -> list[GenCall]:
    calls = []
    for number in range(draw(st.integers(1, 4))):
        arguments = json.dumps(
            draw(_ARGUMENTS),
            ensure_ascii=draw(st.booleans()),
            separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])),
        )
        cuts = draw(st.lists(st.integers(1, len(arguments) - 1), max_size=8))
        call_id = f"{id_prefix}{number}{draw(_ID_SUFFIXES)}"
        calls.append(GenCall(call_id, draw(_NAMES), arguments, split_at(arguments, cuts)))
    return calls


@st.composite
def gen_turns(draw: st.DrawFn, id_prefix: str, interleave: bool) -> GenTurn:
    calls = draw(gen_calls(id_prefix))
    schedule = [index for index, call in enumerate(calls) for _ in call.fragments]
    if interleave:
        schedule = draw(st.permutations(schedule))
        # Calls are announced in the order of their position (index, output_index), as on the wire.
        order = list(dict.fromkeys(schedule))
        calls = [calls[index] for index in order]
        schedule = [order.index(index) for index in schedule]
    return GenTurn(draw(text_parts()), tuple(calls), tuple(schedule))


def sse(event: str | None, payload: Any, ascii_only: bool = False) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload, ensure_ascii=ascii_only)}\n\n".encode()


def chat_wire(turn: GenTurn) -> tuple[bytes, bytes]:
    """(body, terminal event): a Chat Completions stream as OpenAI sends it."""
    base = {"id": "chatcmpl-gen", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return sse(None, {**base, "choices": [choice]})

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": part}) for part in turn.text_parts]
    for index, fragment, first, _ in turn.fragments():
        call = turn.calls[index]
        if first:
            opening = {"index": index, "id": call.id, "type": "function"}
            opening["function"] = {"name": call.name, "arguments": ""}
            out.append(chunk({"tool_calls": [opening]}))
        out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}))
    out.append(chunk({}, "tool_calls"))
    usage = {"prompt_tokens": 9, "completion_tokens": 7, "total_tokens": 16}
    out.append(sse(None, {**base, "choices": [], "usage": usage}))
    return b"".join(out), b"data: [DONE]\n\n"


def responses_wire(turn: GenTurn) -> tuple[bytes, bytes]:
    """(body, terminal event): a Responses stream as OpenAI sends it."""
    sequence = itertools.count()

    def event(kind: str, **fields: Any) -> bytes:
        return sse(kind, {"type": kind, "sequence_number": next(sequence), **fields})

    response: dict[str, Any] = {"id": "resp_gen", "object": "response", "created_at": 1}
    response |= {"model": "m", "status": "in_progress", "output": [], "usage": None, "error": None}
    out = [event("response.created", response=response)]
    out.append(event("response.in_progress", response=response))
    output: list[dict[str, Any]] = []  # the items as response.completed lists them
    if turn.text_parts:
        at = {"item_id": "msg_gen", "output_index": 0, "content_index": 0}
        message = {"id": "msg_gen", "type": "message", "role": "assistant", "content": []}
        out.append(event("response.output_item.added", output_index=0, item=message))
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        out.append(event("response.content_part.added", **at, part=part))
        for delta in turn.text_parts:
            out.append(event("response.output_text.delta", **at, delta=delta, logprobs=[]))
        part = {**part, "text": "".join(turn.text_parts)}
        out.append(event("response.output_text.done", **at, text=part["text"], logprobs=[]))
        out.append(event("response.content_part.done", **at, part=part))
        output.append({**message, "status": "completed", "content": [part]})
        out.append(event("response.output_item.done", output_index=0, item=output[0]))
    offset = len(output)
    calls_done: dict[int, dict[str, Any]] = {}
    for index, fragment, first, last in turn.fragments():
        call = turn.calls[index]
        at = {"item_id": f"fc_{index}", "output_index": offset + index}
        item = {"id": at["item_id"], "type": "function_call", "status": "in_progress"}
        item |= {"arguments": "", "call_id": call.id, "name": call.name}
        if first:
            out.append(event("response.output_item.added", output_index=offset + index, item=item))
        out.append(event("response.function_call_arguments.delta", **at, delta=fragment))
        if last:
            out.append(
                event("response.function_call_arguments.done", **at, arguments=call.arguments)
            )
            item |= {"status": "completed", "arguments": call.arguments}
            out.append(event("response.output_item.done", output_index=offset + index, item=item))
            calls_done[index] = item
    output += [calls_done[index] for index in range(len(turn.calls))]
    usage = {"input_tokens": 9, "output_tokens": 7, "total_tokens": 16}
    completed = {**response, "status": "completed", "output": output, "usage": usage}
    return b"".join(out), event("response.completed", response=completed)


def anthropic_wire(turn: GenTurn) -> tuple[bytes, bytes]:
    """(body, terminal event): a Messages stream as Anthropic sends it (blocks one by one)."""

    def event(kind: str, **fields: Any) -> bytes:
        return sse(kind, {"type": kind, **fields}, ascii_only=True)

    message: dict[str, Any] = {"id": "msg_gen", "type": "message", "role": "assistant"}
    message |= {"model": "m", "content": [], "stop_reason": None, "stop_sequence": None}
    message |= {"usage": {"input_tokens": 9, "output_tokens": 1}}
    out = [event("message_start", message=message), event("ping")]
    blocks = 0
    if turn.text_parts:
        text_block = {"type": "text", "text": ""}
        out.append(event("content_block_start", index=0, content_block=text_block))
        for part in turn.text_parts:
            delta = {"type": "text_delta", "text": part}
            out.append(event("content_block_delta", index=0, delta=delta))
        out.append(event("content_block_stop", index=0))
        blocks = 1
    for call in turn.calls:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        out.append(event("content_block_start", index=blocks, content_block=block))
        for fragment in ("", *call.fragments):
            delta = {"type": "input_json_delta", "partial_json": fragment}
            out.append(event("content_block_delta", index=blocks, delta=delta))
        out.append(event("content_block_stop", index=blocks))
        blocks += 1
    stop = {"stop_reason": "tool_use", "stop_sequence": None}
    out.append(event("message_delta", delta=stop, usage={"output_tokens": 7}))
    return b"".join(out), event("message_stop")


WIRE = {
    "openai-chat": (chat_wire, gen_turns("call_", interleave=True)),
    "openai-responses": (responses_wire, gen_turns("call_", interleave=True)),
    "anthropic": (anthropic_wire, gen_turns("toolu_", interleave=False)),
}


def rechunk(body: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(set(cuts)), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize("protocol", sorted(WIRE))
def test_synthetic_streams_agree_with_sdk(protocol: str) -> None:
    build, turns = WIRE[protocol]

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(turn=turns, data=st.data())
    def check(turn: GenTurn, data: st.DataObject) -> None:
        body, terminal = build(turn)
        whole = body + terminal
        chunks = rechunk(whole, data.draw(st.lists(st.integers(0, len(whole)), max_size=10)))
        result = assemble(protocol, chunks)
        sdk = SDK_ACCUMULATORS[protocol](chunks)
        assert_same_turn(protocol, result, sdk)
        # Both are right, not only alike: the calls are the ones that were sent.
        sent = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in turn.calls]
        assert result.to_dict()["tool_calls"] == sent
        assert result.text == "".join(turn.text_parts)
        # Without its terminal event the same body is a cut turn and nothing of it may run.
        cut = assemble(protocol, [body]).to_dict()
        assert (cut["outcome"], cut["reason"], cut["tool_calls"]) == ("truncated", "cut", [])
        assert [call["id"] for call in cut["pending_calls"]] == [c.id for c in turn.calls]

    check()
