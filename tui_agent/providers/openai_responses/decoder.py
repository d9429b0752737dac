"""OpenAI Responses streaming, and the servers that copy it (DeepSeek, Bedrock, LM Studio).

Function calls are keyed by their item id (``fc_...``), or by ``output_index`` where an event
names no item; results go back under ``call_id`` (``call_...``). The complete arguments in
``function_call_arguments.done`` and ``output_item.done`` win over the deltas (LM Studio sends
only those). The turn ends at ``response.completed``, ``.incomplete`` or ``.failed``. A
``web_search_call`` item ran at the provider: it is told (``ServerToolUsed``), nothing runs.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ...stream.events import (
    ReasoningDelta,
    ServerToolUsed,
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
from ...stream.jsonparse import dumps_compact
from ..decoding import (
    StreamDecoder,
    error_message,
    hashable_key,
    may_hold_object,
    object_arguments_failure,
    parse_payload,
)
from ..server_tools import detail as server_tool_detail

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_TEXT_DELTAS = frozenset({"response.output_text.delta", "response.refusal.delta"})
_REASONING_DELTAS = frozenset(
    {"response.reasoning_summary_text.delta", "response.reasoning_text.delta"}
)
_DONE_TEXT: dict[str, tuple[str, type[TextDelta] | type[ReasoningDelta]]] = {
    "response.output_text.done": ("text", TextDelta),
    "response.refusal.done": ("refusal", TextDelta),
    "response.reasoning_summary_text.done": ("text", ReasoningDelta),
    "response.reasoning_text.done": ("text", ReasoningDelta),
}
_KNOWN_EVENTS = frozenset(
    {"error", "response.output_item.added", "response.output_item.done"}
    | _TERMINAL
    | _TEXT_DELTAS
    | _REASONING_DELTAS
    | set(_DONE_TEXT)
    | {"response.function_call_arguments.delta", "response.function_call_arguments.done"}
)


class ResponsesDecoder(StreamDecoder):
    def __init__(self) -> None:
        super().__init__()
        self._keys_by_index: dict[Any, Hashable] = {}
        self._calls: set[Hashable] = set()
        self._streamed_parts: set[tuple[Any, Any, Any]] = set()
        self._object_arguments = False  # this event sent a call's arguments as an object

    def decode(self, event: str, data: str) -> list[StreamEvent]:
        exact = may_hold_object(data, '"arguments"', '"delta"')
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
        if not self._identified:
            response = payload.get("response")
            rid = response.get("id") if isinstance(response, dict) else None
            out += self.identify(rid, data)
        if kind in _TEXT_DELTAS or kind in _REASONING_DELTAS:
            delta = payload.get("delta")
            if isinstance(delta, str) and delta:
                self._streamed_parts.add(self._part(kind, payload))
                out.append(TextDelta(delta) if kind in _TEXT_DELTAS else ReasoningDelta(delta))
        elif kind == "response.function_call_arguments.delta":
            delta = payload.get("delta")
            text = self._arguments_text(delta)
            if text:
                key = self._call_key(payload)
                if isinstance(delta, str):
                    out.append(ToolArgumentsDelta(key, text))
                else:
                    out.append(ToolArgumentsFinal(key, text))
        elif kind == "response.function_call_arguments.done":
            text = self._arguments_text(payload.get("arguments"))
            if text is not None:
                out.append(ToolArgumentsFinal(self._call_key(payload), text))
        elif kind == "response.output_item.added" or kind == "response.output_item.done":
            self._item(payload, kind.endswith(".done"), out)
        elif kind in _DONE_TEXT:
            self._done_text(kind, payload, out)
        elif kind in _TERMINAL:
            self._terminal(kind, payload, out)
        elif kind == "error" or event == "error":
            out.append(StreamFailure("error", error_message(payload)))
        if self._object_arguments:
            self._object_arguments = False
            if not exact:
                out += object_arguments_failure(data)
        return out

    def _arguments_text(self, value: Any) -> str | None:
        if isinstance(value, str):
            return value
        if isinstance(value, dict | list):
            self._object_arguments = True
            return dumps_compact(value)
        return None

    @staticmethod
    def _part(kind: str, payload: dict[str, Any]) -> tuple[Any, Any, Any]:
        text_kinds = ("response.output_text", "response.refusal")
        family = "text" if kind.startswith(text_kinds) else "reasoning"
        index = payload.get("content_index", payload.get("summary_index"))
        item = hashable_key(payload.get("item_id", payload.get("output_index")))
        return (family, item, hashable_key(index))

    def _done_text(self, kind: str, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        """A part's whole text counts only if no deltas were streamed for it."""
        field, event_type = _DONE_TEXT[kind]
        text = payload.get(field)
        if isinstance(text, str) and text and self._part(kind, payload) not in self._streamed_parts:
            out.append(event_type(text))

    def _call_key(self, payload: dict[str, Any]) -> Hashable:
        item_id = payload.get("item_id")
        if isinstance(item_id, str) and item_id in self._calls:
            return item_id
        key = self._keys_by_index.get(hashable_key(payload.get("output_index")))
        if key is not None:
            return key
        if isinstance(item_id, str) and item_id:
            return item_id
        return ("index", hashable_key(payload.get("output_index")))

    def _item(self, payload: dict[str, Any], done: bool, out: list[StreamEvent]) -> None:
        item = payload.get("item")
        if not isinstance(item, dict):
            return
        if done and item.get("type") == "web_search_call":  # it ran at the provider
            out.append(ServerToolUsed("web_search", server_tool_detail(item.get("action"))))
        if item.get("type") != "function_call":
            return
        self._function_call(item, hashable_key(payload.get("output_index")), done, out)

    def _function_call(
        self, item: dict[str, Any], output_index: Any, done: bool, out: list[StreamEvent]
    ) -> None:
        item_id = item.get("id")
        key: Hashable
        if isinstance(item_id, str) and item_id:
            key = item_id
        else:
            key = self._keys_by_index.get(output_index, ("index", output_index))
        if output_index is not None:
            self._keys_by_index.setdefault(output_index, key)
        call_id = item.get("call_id")
        name = item.get("name")
        if key not in self._calls or (done and call_id):
            self._calls.add(key)
            out.append(
                ToolCallStarted(
                    key,
                    call_id if isinstance(call_id, str) else "",
                    name if isinstance(name, str) else "",
                )
            )
        arguments = self._arguments_text(item.get("arguments"))
        if arguments:
            out.append(ToolArgumentsFinal(key, arguments))
        if done:
            out.append(ToolCallClosed(key))

    def _terminal(self, kind: str, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        response = payload.get("response")
        if not isinstance(response, dict):
            response = {}
        # The final output list repeats every item; it also catches a call never announced.
        output = response.get("output")
        if isinstance(output, list):
            for index, item in enumerate(output):
                if isinstance(item, dict) and item.get("type") == "function_call":
                    self._function_call(item, index, False, out)
        usage = response.get("usage")
        if isinstance(usage, dict):
            out.append(UsageReported(usage))
        if kind == "response.completed":
            stop_reason = response.get("status") or "completed"
        elif kind == "response.incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            stop_reason = reason or response.get("status") or "incomplete"
        else:
            error = response.get("error")
            if error:
                out.append(StreamFailure("error", error_message({"error": error})))
            else:
                out.append(StreamFailure("error", "the response failed"))
            stop_reason = "failed"
        if not isinstance(stop_reason, str):
            stop_reason = "incomplete"
        out.append(TurnEnd(stop_reason))
