"""Large synthetic SSE bodies in each protocol's exact wire format, and what they must assemble to.

Two shapes per protocol: "text" (one long answer streamed as many small deltas) and "calls" (eight
parallel tool calls whose JSON argument text streams as 2-12 character fragments, interleaved
across the calls by a seeded RNG). Gemini generateContent has no argument fragments: its calls
arrive as whole ``args`` objects. Event shapes follow the recorded streams in tests/fixtures/.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from assemble_content import (
    BenchStream,
    Sizes,
    Wire,
    interleaved,
    make_calls,
    obfuscation,
    text_deltas,
)

PROTOCOLS = ("openai-responses", "openai-chat", "anthropic", "gemini-interactions", "gemini")
KINDS = ("text", "calls")
SEED = 20240611


# -- OpenAI Responses --------------------------------------------------------------------------


def _responses(rng: random.Random, sizes: Sizes, kind: str) -> BenchStream:
    wire = Wire(named=True, separators=(",", ":"))
    seq = iter(range(10**9))
    rid = f"resp_{rng.getrandbits(128):032x}"
    parameters = {"type": "object", "properties": {}, "additionalProperties": True}
    tool = {"type": "function", "name": "write_file", "description": "Write a file.",
            "parameters": parameters, "strict": True}  # fmt: skip

    def response(status: str, output: list[Any], usage: Any = None) -> dict[str, Any]:
        return {
            "id": rid, "object": "response", "created_at": 1765552663, "status": status,
            "background": False, "error": None, "incomplete_details": None,
            "instructions": None, "max_output_tokens": None, "model": "gpt-5.1",
            "output": output, "parallel_tool_calls": True, "previous_response_id": None,
            "reasoning": {"effort": "none", "summary": None}, "service_tier": "default",
            "store": True, "temperature": 1.0, "text": {"format": {"type": "text"}},
            "tool_choice": "auto", "tools": [tool], "top_p": 1.0, "truncation": "disabled",
            "usage": usage, "user": None, "metadata": {},
        }  # fmt: skip

    def send(payload: dict[str, Any]) -> None:
        kind = payload["type"]
        wire.send({"type": kind, "sequence_number": next(seq), **payload}, kind)

    send({"type": "response.created", "response": response("in_progress", [])})
    send({"type": "response.in_progress", "response": response("in_progress", [])})
    usage = {"input_tokens": 812, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 250_000, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 250_812}  # fmt: skip
    text, calls, fragments = "", [], 0
    if kind == "text":
        text, deltas = text_deltas(rng, sizes)
        mid = f"msg_{rng.getrandbits(128):032x}"
        item = {"id": mid, "type": "message", "status": "in_progress", "content": [],
                "role": "assistant"}  # fmt: skip
        send({"type": "response.output_item.added", "output_index": 0, "item": item})
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        where = {"item_id": mid, "output_index": 0, "content_index": 0}
        send({"type": "response.content_part.added", **where, "part": part})
        for delta in deltas:
            send({"type": "response.output_text.delta", **where, "delta": delta, "logprobs": [],
                  "obfuscation": obfuscation(rng)})  # fmt: skip
        send({"type": "response.output_text.done", **where, "text": text, "logprobs": []})
        part = {**part, "text": text}
        send({"type": "response.content_part.done", **where, "part": part})
        item = {**item, "status": "completed", "content": [part]}
        send({"type": "response.output_item.done", "output_index": 0, "item": item})
        output = [item]
    else:
        pairs = make_calls(rng, sizes, "call_")
        calls = [c for c, _ in pairs]
        items = []
        for i, call in enumerate(calls):
            item = {"id": f"fc_{rng.getrandbits(128):032x}", "type": "function_call",
                    "status": "in_progress", "arguments": "", "call_id": call.id,
                    "name": call.name}  # fmt: skip
            items.append(item)
            send({"type": "response.output_item.added", "output_index": i, "item": item})
        for position, fragment in interleaved(rng, calls):
            fragments += 1
            send({"type": "response.function_call_arguments.delta",
                  "item_id": items[position]["id"], "output_index": position, "delta": fragment,
                  "obfuscation": obfuscation(rng)})  # fmt: skip
        output = []
        for i, (call, item) in enumerate(zip(calls, items, strict=True)):
            send({"type": "response.function_call_arguments.done", "item_id": item["id"],
                  "output_index": i, "arguments": call.arguments})  # fmt: skip
            done = {**item, "status": "completed", "arguments": call.arguments}
            send({"type": "response.output_item.done", "output_index": i, "item": done})
            output.append(done)
    # The final output list repeats every item in full, as real responses do.
    send({"type": "response.completed", "response": response("completed", output, usage)})
    return BenchStream("openai-responses", kind, wire.body(), text, tuple(calls), wire.events,
                       fragments)  # fmt: skip


# -- OpenAI Chat Completions -----------------------------------------------------------------


def _chat(rng: random.Random, sizes: Sizes, kind: str) -> BenchStream:
    wire = Wire(named=False, separators=(",", ":"))
    head = {"id": f"chatcmpl-{rng.getrandbits(96):024x}", "object": "chat.completion.chunk",
            "created": 1759436804, "model": "gpt-4o-2024-08-06", "service_tier": "default",
            "system_fingerprint": "fp_cbf1785567"}  # fmt: skip

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        wire.send({**head, "usage": None, "choices": [choice], "obfuscation": obfuscation(rng)})

    chunk({"role": "assistant", "content": "" if kind == "text" else None, "refusal": None})
    text, calls, fragments = "", [], 0
    if kind == "text":
        text, deltas = text_deltas(rng, sizes)
        for delta in deltas:
            chunk({"content": delta})
        chunk({}, "stop")
    else:
        calls = [c for c, _ in make_calls(rng, sizes, "call_")]
        for i, call in enumerate(calls):
            function = {"name": call.name, "arguments": ""}
            chunk({"tool_calls": [{"index": i, "id": call.id, "type": "function",
                                   "function": function}]})  # fmt: skip
        for position, fragment in interleaved(rng, calls):
            fragments += 1
            chunk({"tool_calls": [{"index": position, "function": {"arguments": fragment}}]})
        chunk({}, "tool_calls")
    usage = {"prompt_tokens": 417, "completion_tokens": 250_000, "total_tokens": 250_417}
    wire.send({**head, "choices": [], "usage": usage, "obfuscation": obfuscation(rng)})
    wire.raw("[DONE]")
    return BenchStream("openai-chat", kind, wire.body(), text, tuple(calls), wire.events, fragments)


# -- Anthropic Messages ----------------------------------------------------------------------


def _anthropic(rng: random.Random, sizes: Sizes, kind: str) -> BenchStream:
    wire = Wire(named=True, separators=(",", ":"))

    def send(payload: dict[str, Any]) -> None:
        wire.send(payload, payload["type"])

    usage = {"input_tokens": 542, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
             "output_tokens": 1, "service_tier": "standard"}  # fmt: skip
    message = {"model": "claude-sonnet-4-5", "id": f"msg_{rng.getrandbits(96):024x}",
               "type": "message", "role": "assistant", "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": usage}  # fmt: skip
    send({"type": "message_start", "message": message})
    text, calls, fragments = "", [], 0
    if kind == "text":
        text, deltas = text_deltas(rng, sizes)
        send({"type": "content_block_start", "index": 0,
              "content_block": {"type": "text", "text": ""}})  # fmt: skip
        wire.raw('{"type": "ping"}', "ping")
        for delta in deltas:
            send({"type": "content_block_delta", "index": 0,
                  "delta": {"type": "text_delta", "text": delta}})  # fmt: skip
        send({"type": "content_block_stop", "index": 0})
        stop = "end_turn"
    else:
        # Real streams open one block at a time; blocks are keyed by index, so interleave them.
        calls = [c for c, _ in make_calls(rng, sizes, "toolu_")]
        for i, call in enumerate(calls):
            block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
            send({"type": "content_block_start", "index": i, "content_block": block})
        wire.raw('{"type": "ping"}', "ping")
        for position, fragment in interleaved(rng, calls):
            fragments += 1
            send({"type": "content_block_delta", "index": position,
                  "delta": {"type": "input_json_delta", "partial_json": fragment}})  # fmt: skip
        for i in range(len(calls)):
            send({"type": "content_block_stop", "index": i})
        stop = "tool_use"
    send({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
          "usage": {"output_tokens": 250_000}})  # fmt: skip
    send({"type": "message_stop"})
    return BenchStream("anthropic", kind, wire.body(), text, tuple(calls), wire.events, fragments)


# -- Gemini Interactions ---------------------------------------------------------------------


def _interactions(rng: random.Random, sizes: Sizes, kind: str) -> BenchStream:
    wire = Wire(named=True, separators=(",", ":"))

    def send(payload: dict[str, Any]) -> None:
        wire.send(payload, payload["event_type"])

    iid = f"v1_{rng.getrandbits(192):048x}"
    interaction = {"id": iid, "status": "in_progress", "object": "interaction",
                   "model": "gemini-2.5-flash"}  # fmt: skip
    send({"interaction": interaction, "event_type": "interaction.created"})
    send({"interaction_id": iid, "status": "in_progress",
          "event_type": "interaction.status_update"})  # fmt: skip
    text, calls, fragments = "", [], 0
    if kind == "text":
        text, deltas = text_deltas(rng, sizes)
        send({"index": 0, "step": {"type": "model_output"}, "event_type": "step.start"})
        for delta in deltas:
            send({"index": 0, "delta": {"text": delta, "type": "text"},
                  "event_type": "step.delta"})  # fmt: skip
        send({"index": 0, "event_type": "step.stop"})
        status = "completed"
    else:
        # Real streams run one step at a time; steps are keyed by index, so interleave them.
        calls = [c for c, _ in make_calls(rng, sizes, "")]
        for i, call in enumerate(calls):
            step = {"id": call.id, "signature": "", "type": "function_call", "name": call.name,
                    "arguments": {}}  # fmt: skip
            send({"index": i, "step": step, "event_type": "step.start"})
        for position, fragment in interleaved(rng, calls):
            fragments += 1
            send({"index": position, "delta": {"arguments": fragment, "type": "arguments_delta"},
                  "event_type": "step.delta"})  # fmt: skip
        for i in range(len(calls)):
            send({"index": i, "event_type": "step.stop"})
        status = "requires_action"
    usage = {"total_tokens": 250_053, "total_input_tokens": 53, "total_output_tokens": 250_000}
    done = {**interaction, "status": status, "usage": usage, "created": "2026-05-15T18:52:03Z",
            "updated": "2026-05-15T18:52:03Z", "service_tier": "standard"}  # fmt: skip
    send({"interaction": done, "event_type": "interaction.completed"})
    return BenchStream("gemini-interactions", kind, wire.body(), text, tuple(calls), wire.events,
                       fragments)  # fmt: skip


# -- Gemini generateContent (alt=sse) --------------------------------------------------------


def _gemini(rng: random.Random, sizes: Sizes, kind: str) -> BenchStream:
    wire = Wire(named=False, separators=(",", ": "), newline="\r\n")
    rid = f"{rng.getrandbits(96):024x}"
    usage = {"promptTokenCount": 29, "candidatesTokenCount": 10, "totalTokenCount": 39}

    def send(parts: list[dict[str, Any]], finish: str | None = None) -> None:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if finish:
            candidate["finishReason"] = finish
        candidate["index"] = 0
        wire.send({"candidates": [candidate], "usageMetadata": usage,
                   "modelVersion": "gemini-2.5-pro", "responseId": rid})  # fmt: skip

    text, calls = "", []
    if kind == "text":
        text, deltas = text_deltas(rng, sizes)
        for delta in deltas:
            send([{"text": delta}])
    else:
        # No argument fragments here: each call arrives whole, its args an object.
        pairs = make_calls(rng, sizes, "")
        calls = [c for c, _ in pairs]
        parts = []
        for i, (call, args) in enumerate(pairs):
            part: dict[str, Any] = {"functionCall": {"name": call.name, "args": args,
                                                     "id": call.id}}  # fmt: skip
            if i == 0:
                part["thoughtSignature"] = "EpIDCo8DAQw51scL" * 16
            parts.append(part)
        for i in range(0, len(parts), 2):  # spread over several chunks
            send(parts[i : i + 2])
    send([{"text": ""}], "STOP")
    return BenchStream("gemini", kind, wire.body(), text, tuple(calls), wire.events, 0)


_BUILDERS: dict[str, Callable[[random.Random, Sizes, str], BenchStream]] = {
    "openai-responses": _responses,
    "openai-chat": _chat,
    "anthropic": _anthropic,
    "gemini-interactions": _interactions,
    "gemini": _gemini,
}


def build(protocol: str, kind: str, sizes: Sizes) -> BenchStream:
    """One stream; the same protocol, kind and sizes always give the same bytes."""
    rng = random.Random(f"{SEED}:{protocol}:{kind}")
    return _BUILDERS[protocol](rng, sizes, kind)


def chunked(body: bytes, size: int = 16 * 1024) -> list[bytes]:
    """The body as socket-sized reads."""
    return [body[i : i + size] for i in range(0, len(body), size)]


def all_streams(sizes: Sizes) -> Iterator[BenchStream]:
    for protocol in PROTOCOLS:
        for kind in KINDS:
            yield build(protocol, kind, sizes)
