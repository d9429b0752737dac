"""What is timed: the floor, a naive accumulator, tui_agent.assemble and the official SDK helpers.

Every contender gets the same list of 16 KiB byte chunks and starts from raw bytes. All but
``assemble`` decode SSE exactly as the floor does (httpx-sse over an ``httpx.Response``) and parse
each event with ``json.loads``; the SDK contenders then build the SDK's own event objects the way
the SDK's ``Stream`` does (``construct_type`` on the stream's event type) and feed its stream
helper's accumulator, as a user of ``.stream()`` pays for. Every contender but the floor returns
``(text, [(id, name, arguments), ...])`` so that its result can be checked outside the timing.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import httpx_sse

import tui_agent

Chunks = list[bytes]
Calls = list[tuple[str, str, str]]
Outcome = tuple[str, Calls]
_HEADERS = {"content-type": "text/event-stream"}


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sse_events(chunks: Chunks) -> Iterator[httpx_sse.ServerSentEvent]:
    """httpx-sse decoding of the chunks, as a client reading a live response gets it."""
    response = httpx.Response(200, headers=_HEADERS, content=iter(chunks))
    return httpx_sse.EventSource(response).iter_sse()


def floor(protocol: str, chunks: Chunks) -> int:
    """SSE decoding plus ``json.loads`` of every event: no accumulation at all."""
    loads = json.loads
    count = 0
    for sse in sse_events(chunks):
        data = sse.data
        if data and not data.startswith("[DONE]"):
            loads(data)
            count += 1
    return count


# -- dict of lists: the floor plus the simplest accumulator ------------------------------------

_Acc = tuple[list[str], dict[Any, list[str]], dict[Any, tuple[str, str]]]


def _naive_chat(event: dict[str, Any], acc: _Acc) -> None:
    text, parts, meta = acc
    for choice in event["choices"]:
        delta = choice["delta"]
        if delta.get("content"):
            text.append(delta["content"])
        for call in delta.get("tool_calls") or ():
            key = call["index"]
            if call.get("id"):
                meta[key] = (call["id"], call["function"]["name"])
            parts.setdefault(key, []).append(call["function"].get("arguments") or "")


def _naive_responses(event: dict[str, Any], acc: _Acc) -> None:
    text, parts, meta = acc
    kind = event["type"]
    if kind == "response.output_text.delta":
        text.append(event["delta"])
    elif kind == "response.function_call_arguments.delta":
        parts[event["item_id"]].append(event["delta"])
    elif kind == "response.output_item.added" and event["item"]["type"] == "function_call":
        item = event["item"]
        meta[item["id"]] = (item["call_id"], item["name"])
        parts[item["id"]] = []


def _naive_anthropic(event: dict[str, Any], acc: _Acc) -> None:
    text, parts, meta = acc
    kind = event["type"]
    if kind == "content_block_delta":
        delta = event["delta"]
        if delta["type"] == "text_delta":
            text.append(delta["text"])
        elif delta["type"] == "input_json_delta":
            parts[event["index"]].append(delta["partial_json"])
    elif kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
        block = event["content_block"]
        meta[event["index"]] = (block["id"], block["name"])
        parts[event["index"]] = []


def _naive_interactions(event: dict[str, Any], acc: _Acc) -> None:
    text, parts, meta = acc
    kind = event["event_type"]
    if kind == "step.delta":
        delta = event["delta"]
        if delta["type"] == "text":
            text.append(delta["text"])
        elif delta["type"] == "arguments_delta":
            parts[event["index"]].append(delta["arguments"])
    elif kind == "step.start" and event["step"]["type"] == "function_call":
        step = event["step"]
        meta[event["index"]] = (step["id"], step["name"])
        parts[event["index"]] = []


def _naive_gemini(event: dict[str, Any], acc: _Acc) -> None:
    text, parts, meta = acc
    for part in event["candidates"][0]["content"]["parts"]:
        if "text" in part:
            text.append(part["text"])
        elif "functionCall" in part:
            call = part["functionCall"]
            key = len(parts)
            meta[key] = (call.get("id", ""), call["name"])
            parts[key] = [compact(call.get("args", {}))]


_NAIVE: dict[str, Callable[[dict[str, Any], _Acc], None]] = {
    "openai-chat": _naive_chat,
    "openai-responses": _naive_responses,
    "anthropic": _naive_anthropic,
    "gemini-interactions": _naive_interactions,
    "gemini": _naive_gemini,
}


def dict_of_lists(protocol: str, chunks: Chunks) -> Outcome:
    """The floor plus a text list and one list of fragments per call key."""
    handle = _NAIVE[protocol]
    loads = json.loads
    acc: _Acc = ([], {}, {})
    for sse in sse_events(chunks):
        data = sse.data
        if data and not data.startswith("[DONE]"):
            handle(loads(data), acc)
    text, parts, meta = acc
    return "".join(text), [(*meta[key], "".join(p)) for key, p in parts.items()]


def assemble(protocol: str, chunks: Chunks) -> Outcome:
    result = tui_agent.assemble(protocol, iter(chunks))
    if result.outcome != "complete":
        raise AssertionError(f"assemble: {result.outcome} ({result.reason})")
    return result.text, [(c.id, c.name, c.arguments) for c in result.tool_calls]


# -- official SDK stream helpers -------------------------------------------------------------


def _openai_chat(protocol: str, chunks: Chunks) -> Outcome:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.lib.streaming.chat._completions import _is_valid_chat_completion_chunk_weak
    from openai.types.chat import ChatCompletionChunk

    loads = json.loads
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for sse in sse_events(chunks):
        if sse.data.startswith("[DONE]"):
            break
        chunk = construct_type(type_=ChatCompletionChunk, value=loads(sse.data))
        if _is_valid_chat_completion_chunk_weak(chunk):
            for _ in state.handle_chunk(chunk):
                pass
    message = state.get_final_completion().choices[0].message
    calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()]
    return message.content or "", calls  # type: ignore[return-value]


def _openai_responses(protocol: str, chunks: Chunks) -> Outcome:
    from openai import omit
    from openai._models import construct_type
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent

    loads = json.loads
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    for sse in sse_events(chunks):
        if sse.data.startswith("[DONE]"):
            break
        event = construct_type(type_=ResponseStreamEvent, value=loads(sse.data))
        for _ in state.handle_event(event):  # type: ignore[arg-type]
            pass
    response = state._completed_response
    if response is None:
        raise AssertionError("openai responses: no response.completed")
    calls = [(i.call_id, i.name, i.arguments) for i in response.output if i.type == "function_call"]
    return response.output_text, calls


def _anthropic(protocol: str, chunks: Chunks) -> Outcome:
    from anthropic._models import construct_type
    from anthropic.lib.streaming._messages import accumulate_event, build_events
    from anthropic.types import RawMessageStreamEvent

    loads = json.loads
    snapshot: Any = None
    json_bufs: dict[int, bytes] = {}
    for sse in sse_events(chunks):
        if sse.event == "ping" or not sse.data:
            continue
        if sse.event == "error":
            raise AssertionError(sse.data)
        event: Any = construct_type(type_=RawMessageStreamEvent, value=loads(sse.data))
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
        for _ in build_events(event=event, message_snapshot=snapshot):
            pass
    text = "".join(b.text for b in snapshot.content if b.type == "text")
    calls = [(b.id, b.name, compact(b.input)) for b in snapshot.content if b.type == "tool_use"]
    return text, calls


@dataclass(frozen=True)
class SDK:
    label: str  # what is measured, for the table's notes
    run: Callable[[str, Chunks], Outcome]


def _available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def sdk_for(protocol: str) -> SDK | None:
    """The official SDK accumulator for ``protocol``, or None (Gemini has none; SDK missing)."""
    if protocol == "openai-chat" and _available("openai"):
        return SDK("openai ChatCompletionStreamState.handle_chunk", _openai_chat)
    if protocol == "openai-responses" and _available("openai"):
        return SDK("openai ResponseStreamState.handle_event", _openai_responses)
    if protocol == "anthropic" and _available("anthropic"):
        return SDK("anthropic MessageStream accumulate_event + build_events", _anthropic)
    return None


def warm_up() -> None:
    """Import the SDK modules once, so no contender pays for an import inside the timing."""
    for protocol in ("openai-chat", "openai-responses", "anthropic"):
        sdk = sdk_for(protocol)
        if sdk is not None:
            # An empty body is not a turn; only the imports matter here.
            with contextlib.suppress(Exception):
                sdk.run(protocol, [])
