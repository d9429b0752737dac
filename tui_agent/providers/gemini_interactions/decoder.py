"""Gemini Interactions API streaming.

Steps are keyed by their ``index``. A ``function_call`` step is the client's; its arguments
arrive as ``arguments_delta`` fragments in ``delta.arguments`` (the ``arguments: {}`` on the
step's start is a placeholder). The JSON names the event in ``event_type``. The turn ends at
``interaction.completed``, whose ``interaction.status`` is the outcome (``requires_action``
means: run the tools). A built-in tool's ``*_call`` step (``google_search_call``) ran at the
provider: it is told when the step stops (``ServerToolUsed``), nothing runs here.
"""

from __future__ import annotations

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

_KNOWN_EVENTS = frozenset(
    {
        "interaction.created",
        "interaction.status_update",
        "interaction.completed",
        "step.start",
        "step.delta",
        "step.stop",
        "error",
    }
)


def _summary_text(delta: dict[str, Any]) -> str:
    text = delta.get("text")
    if isinstance(text, str):
        return text
    content = delta.get("content")
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _is_server_call(kind: object) -> bool:
    """A built-in tool's call step (``google_search_call``, ``url_context_call``...)."""
    return isinstance(kind, str) and kind.endswith("_call") and kind != "function_call"


class InteractionsDecoder(StreamDecoder):
    def __init__(self) -> None:
        super().__init__()
        self._calls: dict[Any, dict[str, Any]] = {}  # step index -> placeholder arguments
        self._streamed: set[Any] = set()
        self._server_steps: dict[Any, tuple[str, Any]] = {}  # index -> name, its arguments

    def decode(self, event: str, data: str) -> list[StreamEvent]:
        exact = may_hold_object(data, '"arguments"')
        payload = parse_payload(event, data, _KNOWN_EVENTS, exact)
        if payload is None:
            return []
        if isinstance(payload, StreamFailure):
            return [payload]
        if not isinstance(payload, dict):
            return [StreamFailure("protocol", "an event that is not a JSON object")]
        kind = payload.get("event_type") or payload.get("type")
        if not isinstance(kind, str):
            kind = event
        out: list[StreamEvent] = []
        if not self._identified:
            interaction = payload.get("interaction")
            iid = interaction.get("id") if isinstance(interaction, dict) else None
            out += self.identify(iid or payload.get("interaction_id"), data)
        if kind == "step.delta":
            self._delta(payload, out)
        elif kind == "step.start":
            self._step_start(payload, out)
        if (
            not exact
            and kind in ("step.delta", "step.start")
            and any(
                type(item) is ToolCallStarted or type(item) is ToolArgumentsFinal for item in out
            )
        ):  # a function_call step: its arguments may come as an object
            out += object_arguments_failure(data)
        elif kind == "step.stop":
            index = hashable_key(payload.get("index"))
            if index in self._server_steps:
                name, arguments = self._server_steps.pop(index)
                out.append(ServerToolUsed(name, server_tool_detail(arguments)))
            if index in self._calls:
                placeholder = self._calls[index]
                if placeholder and index not in self._streamed:
                    out.append(ToolArgumentsFinal(index, dumps_compact(placeholder)))
                out.append(ToolCallClosed(index))
        elif kind == "interaction.completed":
            interaction = payload.get("interaction")
            if not isinstance(interaction, dict):
                interaction = {}
            usage = interaction.get("usage")
            if isinstance(usage, dict):
                out.append(UsageReported(usage))
            status = interaction.get("status")
            if status in ("failed", "error"):
                error = interaction.get("error")
                message = error_message({"error": error}) if error else "the interaction failed"
                out.append(StreamFailure("error", message))
            out.append(TurnEnd(status if isinstance(status, str) and status else None))
        elif kind == "error" or event == "error":
            out.append(StreamFailure("error", error_message(payload)))
        return out

    def _step_start(self, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        step = payload.get("step")
        if not isinstance(step, dict):
            return
        index = hashable_key(payload.get("index"))
        kind = step.get("type")
        if kind == "function_call":
            if index in self._calls:
                out.append(StreamFailure("protocol", f"step {index} started twice"))
                return
            arguments = step.get("arguments")
            self._calls[index] = arguments if isinstance(arguments, dict) else {}
            call_id, name = step.get("id"), step.get("name")
            out.append(
                ToolCallStarted(
                    index,
                    call_id if isinstance(call_id, str) else "",
                    name if isinstance(name, str) else "",
                )
            )
        elif _is_server_call(kind):  # google_search_call...: it runs at the provider
            self._server_steps[index] = (str(kind).removesuffix("_call"), step.get("arguments"))
        elif kind == "model_output":
            content = step.get("content")
            for part in content if isinstance(content, list) else ():
                if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
                    out.append(TextDelta(part["text"]))

    def _delta(self, payload: dict[str, Any], out: list[StreamEvent]) -> None:
        delta = payload.get("delta")
        if not isinstance(delta, dict):
            return
        kind = delta.get("type")
        if kind == "text":
            text = delta.get("text")
            if isinstance(text, str) and text:
                out.append(TextDelta(text))
        elif kind == "arguments_delta":
            index = hashable_key(payload.get("index"))
            if index not in self._calls:
                return
            arguments = delta.get("arguments")
            if isinstance(arguments, str):
                if arguments:
                    self._streamed.add(index)
                    out.append(ToolArgumentsDelta(index, arguments))
            elif isinstance(arguments, dict):
                self._streamed.add(index)
                out.append(ToolArgumentsFinal(index, dumps_compact(arguments)))
        elif _is_server_call(kind):
            index = hashable_key(payload.get("index"))
            if index in self._server_steps and delta.get("arguments") is not None:
                self._server_steps[index] = (self._server_steps[index][0], delta["arguments"])
        elif kind == "thought_summary":
            text = _summary_text(delta)
            if text:
                out.append(ReasoningDelta(text))
