"""Anthropic Messages streaming.

Blocks are keyed by their content-block ``index``. Only ``tool_use`` blocks are the client's;
``server_tool_use`` and its results run on the server (told as ``ServerToolUsed`` when the block
closes; nothing runs here). The ``input: {}`` on a block's start is a
placeholder. The turn ends at ``message_stop`` with the stop reason of ``message_delta``; a
``max_tokens`` stop leaves a stopped block whose JSON never closed, and nothing of it may run.
"""

from __future__ import annotations

from typing import Any

from ...stream.events import (
    ReasoningDelta,
    ServerToolUsed,
    StopReasonSeen,
    StreamEvent,
    StreamFailure,
    TextDelta,
    ToolArgumentsDelta,
    ToolArgumentsFinal,
    ToolCallClosed,
    ToolCallStarted,
    TurnEnd,
    UsageReported,
)
from ...stream.jsonparse import dumps_compact, loads_exact
from ..decoding import (
    StreamDecoder,
    error_message,
    hashable_key,
    may_hold_object,
    object_arguments_failure,
    parse_payload,
)
from ..server_tools import detail as server_tool_detail

_KNOWN_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "error",
    }
)


class MessagesDecoder(StreamDecoder):
    def __init__(self) -> None:
        super().__init__()
        self._tool_blocks: dict[Any, dict[str, Any]] = {}  # index -> placeholder input
        self._server_blocks: dict[Any, tuple[str, list[str]]] = {}  # index -> name, its JSON
        self._streamed: set[Any] = set()  # tool blocks that received input_json_delta
        self._stop_reason: str | None = None
        self._started = False

    def decode(self, event: str, data: str) -> list[StreamEvent]:
        exact = may_hold_object(data, '"input"')
        payload = parse_payload(event, data, _KNOWN_EVENTS, exact)
        if payload is None:
            return []
        if isinstance(payload, StreamFailure):
            return [payload]
        if not isinstance(payload, dict):
            return [StreamFailure("protocol", "an event that is not a JSON object")]
        kind = payload.get("type")
        if not isinstance(kind, str):
            kind = event
        out: list[StreamEvent] = []
        if kind == "content_block_delta":
            self._delta(payload, out)
        elif kind == "content_block_start":
            self._block_start(payload, out)
            block = payload.get("content_block")
            if not exact and isinstance(block, dict) and block.get("input"):  # as an object
                out += object_arguments_failure(data)
        elif kind == "content_block_stop":
            index = hashable_key(payload.get("index"))
            if index in self._server_blocks:
                out.append(self._server_tool(*self._server_blocks.pop(index)))
            if index in self._tool_blocks:
                placeholder = self._tool_blocks[index]
                if placeholder and index not in self._streamed:
                    out.append(ToolArgumentsFinal(index, dumps_compact(placeholder)))
                out.append(ToolCallClosed(index))
        elif kind == "message_start":
            message = payload.get("message")
            if not isinstance(message, dict):
                message = {}
            if self._started:
                # Two messages spliced into one stream: their block indexes would collide.
                out.append(StreamFailure("protocol", "a second message_start in one stream"))
            self._started = True
            out += self.identify(message.get("id"), data)
            usage = message.get("usage")
            if isinstance(usage, dict):
                out.append(UsageReported(usage))
        elif kind == "message_delta":
            delta = payload.get("delta")
            if isinstance(delta, dict):
                stop_reason = delta.get("stop_reason")
                if isinstance(stop_reason, str) and stop_reason:
                    self._stop_reason = stop_reason
                    out.append(StopReasonSeen(stop_reason))
            usage = payload.get("usage")
            if isinstance(usage, dict):
                out.append(UsageReported(usage))
        elif kind == "message_stop":
            out.append(TurnEnd(self._stop_reason))
        elif kind == "error" or event == "error":
            out.append(StreamFailure("error", error_message(payload)))
        return out

    def _block_start(self, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        index = hashable_key(payload.get("index"))
        block = payload.get("content_block")
        if not isinstance(block, dict):
            return
        kind = block.get("type")
        if kind == "tool_use":
            if index in self._tool_blocks:
                out.append(StreamFailure("protocol", f"content block {index} started twice"))
                return
            placeholder = block.get("input")
            self._tool_blocks[index] = placeholder if isinstance(placeholder, dict) else {}
            call_id, name = block.get("id"), block.get("name")
            out.append(
                ToolCallStarted(
                    index,
                    call_id if isinstance(call_id, str) else "",
                    name if isinstance(name, str) else "",
                )
            )
        elif kind == "server_tool_use":  # the provider runs it: told, never run here
            name = block.get("name")
            placeholder = block.get("input")
            parts = [dumps_compact(placeholder)] if isinstance(placeholder, dict) else []
            self._server_blocks[index] = (name if isinstance(name, str) else "", parts)
        elif kind == "text":
            text = block.get("text")
            if isinstance(text, str) and text:
                out.append(TextDelta(text))
        elif kind == "thinking":
            thinking = block.get("thinking")
            if isinstance(thinking, str) and thinking:
                out.append(ReasoningDelta(thinking))

    @staticmethod
    def _server_tool(name: str, parts: list[str]) -> ServerToolUsed:
        try:
            value = loads_exact("".join(parts)) if parts else {}
        except ValueError:
            value = "".join(parts)
        return ServerToolUsed(name or "server tool", server_tool_detail(value))

    def _delta(self, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        delta = payload.get("delta")
        if not isinstance(delta, dict):
            return
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            if isinstance(text, str) and text:
                out.append(TextDelta(text))
        elif kind == "input_json_delta":
            index = hashable_key(payload.get("index"))
            if index in self._server_blocks:
                partial = delta.get("partial_json")
                parts = self._server_blocks[index][1]
                if isinstance(partial, str) and partial:
                    if parts and parts[0] == "{}":
                        parts.clear()  # the start's placeholder, replaced by what streams
                    parts.append(partial)
            if index in self._tool_blocks:
                partial = delta.get("partial_json")
                if isinstance(partial, str) and partial:
                    self._streamed.add(index)
                    out.append(ToolArgumentsDelta(index, partial))
        elif kind == "thinking_delta":
            thinking = delta.get("thinking")
            if isinstance(thinking, str) and thinking:
                out.append(ReasoningDelta(thinking))
