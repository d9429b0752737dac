"""Chat Completions streaming, and the many servers that copy it with their own quirks.

Calls are keyed on ``tool_calls[].index`` within the first choice, with the repairs compatible
servers need: no index at all (Mistral, old Ollama), parallel calls sharing index 0 told apart
only by id (SGLang), id and name repeated on every fragment (OpenRouter), ``"id": ""`` on later
fragments (Qwen), arguments sent as an object (llama.cpp, Ollama), the id inside ``function``
(old llama.cpp). The turn ends at ``data: [DONE]``.
"""

from __future__ import annotations

from typing import Any

from ...stream.events import (
    ReasoningDelta,
    StopReasonSeen,
    StreamEvent,
    StreamFailure,
    TextDelta,
    ToolArgumentsDelta,
    ToolArgumentsFinal,
    ToolCallStarted,
    TurnEnd,
    UsageReported,
)
from ...stream.jsonparse import dumps_compact
from ..decoding import (
    StreamDecoder,
    error_message,
    may_hold_object,
    object_arguments_failure,
    parse_payload,
)

_KNOWN_EVENTS = frozenset({"error"})


class ChatCompletionsDecoder(StreamDecoder):
    def __init__(self) -> None:
        super().__init__()
        self._by_index: dict[int, int] = {}  # tool index -> key of the call now on it
        self._by_id: dict[str, int] = {}
        self._ids: dict[int, str] = {}  # key -> provider id
        self._named: set[int] = set()
        self._last_key: int | None = None
        self._next_key = 0
        self._finish_reason: str | None = None
        self._object_arguments = False

    def decode(self, event: str, data: str) -> list[StreamEvent]:
        if data.startswith("[DONE]"):
            return [TurnEnd(self._finish_reason, lax=self._finish_reason is None)]
        exact = may_hold_object(data, '"arguments"')
        payload = parse_payload(event, data, _KNOWN_EVENTS, exact)
        if payload is None:
            return []
        if isinstance(payload, StreamFailure):
            return [payload]
        if not isinstance(payload, dict):
            return [StreamFailure("protocol", "a chunk that is not a JSON object")]
        out: list[StreamEvent] = []
        if not self._identified:
            out += self.identify(payload.get("id"), data)
        if event == "error" or payload.get("error"):
            out.append(StreamFailure("error", error_message(payload)))
        choices = payload.get("choices")
        if choices and isinstance(choices, list):
            for choice in choices:
                if isinstance(choice, dict) and choice.get("index", 0) == 0:
                    self._choice(choice, out)
        usage = payload.get("usage")
        if isinstance(usage, dict):
            out.append(UsageReported(usage))
        if self._object_arguments:  # this event sent a call's arguments as an object
            self._object_arguments = False
            if not exact:
                out += object_arguments_failure(data)
        return out

    def _choice(self, choice: dict[str, Any], out: list[StreamEvent]) -> None:
        delta = choice.get("delta")
        if isinstance(delta, dict):
            content = delta.get("content")
            if content and isinstance(content, str):
                out.append(TextDelta(content))
            refusal = delta.get("refusal")
            if refusal and isinstance(refusal, str):
                out.append(TextDelta(refusal))
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str):
                if reasoning:
                    out.append(ReasoningDelta(reasoning))
            else:
                details = delta.get("reasoning_details")
                if isinstance(details, list):
                    for detail in details:
                        if isinstance(detail, dict) and isinstance(detail.get("text"), str):
                            out.append(ReasoningDelta(detail["text"]))
            tool_calls = delta.get("tool_calls")
            if isinstance(tool_calls, list):
                for fragment in tool_calls:
                    if isinstance(fragment, dict):
                        self._tool_fragment(fragment, out)
        finish_reason = choice.get("finish_reason")
        if isinstance(finish_reason, str) and finish_reason:
            self._finish_reason = finish_reason
            out.append(StopReasonSeen(finish_reason))

    def _tool_fragment(self, fragment: dict[str, Any], out: list[StreamEvent]) -> None:
        function = fragment.get("function")
        index = fragment.get("index")
        if (
            len(fragment) == 2
            and type(index) is int
            and isinstance(function, dict)
            and (len(function) == 1)
        ):
            # The common case, one per fragment: more arguments for a call on a known index.
            key = self._by_index.get(index)
            arguments = function.get("arguments")
            if key is not None and isinstance(arguments, str):
                self._last_key = key
                if arguments:
                    out.append(ToolArgumentsDelta(key, arguments))
                return
        if not isinstance(function, dict):
            function = {}
        call_id = fragment.get("id") or function.get("id") or ""
        if not isinstance(call_id, str):
            call_id = str(call_id)
        name = function.get("name")
        name = name if isinstance(name, str) else ""
        index = fragment.get("index")
        key = self._key_for(index, call_id)
        if key is None:
            key = self._next_key
            self._next_key += 1
            out.append(ToolCallStarted(key, call_id, name))
        elif (call_id and not self._ids.get(key)) or (name and key not in self._named):
            out.append(ToolCallStarted(key, call_id, name))
        if call_id and not self._ids.get(key):
            self._ids[key] = call_id
            self._by_id.setdefault(call_id, key)
        if name:
            self._named.add(key)
        if isinstance(index, int) and not isinstance(index, bool):
            self._by_index[index] = key
        self._last_key = key
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            if arguments:
                out.append(ToolArgumentsDelta(key, arguments))
        elif isinstance(arguments, dict | list):
            self._object_arguments = True
            out.append(ToolArgumentsFinal(key, dumps_compact(arguments)))

    def _key_for(self, index: Any, call_id: str) -> int | None:
        """The call this fragment continues, or None when it opens a new one."""
        if isinstance(index, int) and not isinstance(index, bool):
            key = self._by_index.get(index)
            if key is None:
                return None  # a new index is a new call, even if a server reuses an id
            known = self._ids.get(key, "")
            if call_id and known and call_id != known:
                # SGLang: another call on the same index, told apart only by its id.
                return self._by_id.get(call_id)
            return key
        if call_id:
            return self._by_id.get(call_id)
        return self._last_key
