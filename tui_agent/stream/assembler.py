"""TurnAssembler: hidden per-call buffers, the terminal boundary, exactly one result.

The assembler is the only place argument fragments are kept. While the turn streams it publishes
text, reasoning, each call's id and name, and a byte count; the argument strings leave it only
inside a complete ``Turn`` returned by ``finish()``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from .events import (
    ReasoningDelta,
    ResponseIdentified,
    ServerToolUsed,
    StopReasonSeen,
    StreamEvent,
    StreamFailure,
    TextDelta,
    ToolArgumentsDelta,
    ToolArgumentsFinal,
    ToolArgumentsProgress,
    ToolCallClosed,
    ToolCallStarted,
    TurnEnd,
    UsageReported,
)
from .jsonparse import is_json
from .progress import Progress, ToolArgumentsReceived, ToolCallAnnounced
from .stop_reasons import classify
from .turn import PendingCall, ToolCall, TruncatedTurn, TruncationReason, Turn, TurnResult
from .usage import merge_usage


class _CallBuffer:
    __slots__ = ("call_id", "chars", "closed", "final", "name", "parts", "position", "size")

    def __init__(self, position: int, call_id: str, name: str) -> None:
        self.position = position
        self.call_id = call_id
        self.name = name
        self.parts: list[str] = []
        self.chars = 0
        self.size = 0
        self.final: str | None = None
        self.closed = False

    def arguments(self) -> str:
        text = self.final if self.final is not None else "".join(self.parts)
        return _join_surrogate_pairs(text) or "{}"


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _join_surrogate_pairs(text: str) -> str:
    """A character outside the BMP that a server split between two fragments arrives as two
    halves (``"\\ud83d"`` then ``"\\ude00"``); joined, they are that one character again.
    A half with no partner stays as it is."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


class TurnAssembler:
    """Consumes one turn's StreamEvents; ``feed`` returns what may be shown now, if anything.

    Argument bytes are counted per call and published in batches: ``take_sizes()`` gives one
    ToolArgumentsReceived per call that grew since it was last asked (once per network read).
    """

    def __init__(
        self,
        output_limit: int | None = None,
        output_tokens: Callable[[Mapping[str, Any] | None], int] | None = None,
    ) -> None:
        # The request's output budget and how this protocol's usage counts output: a turn that
        # spent the budget was cut by it, whatever status the server sent (llama.cpp's
        # Responses endpoint says "completed" for a response cut by max_output_tokens).
        self._output_limit = output_limit
        self._output_tokens = output_tokens
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[Hashable, _CallBuffer] = {}
        self._usage: dict[str, Any] | None = None
        self._end: TurnEnd | None = None
        self._stop_reason: str | None = None
        self._error: str | None = None
        self._failed = False
        self._limited = False
        self._response_id: str | None = None
        self._grown: dict[int, _CallBuffer] = {}
        self._handlers: dict[type, Callable[[Any], Progress | None]] = {
            TextDelta: self._on_text,
            ReasoningDelta: self._on_reasoning,
            ToolArgumentsDelta: self._on_arguments_delta,
            ToolCallStarted: self._on_call_started,
            ToolArgumentsFinal: self._on_arguments_final,
            ToolArgumentsProgress: self._on_arguments_progress,
            ToolCallClosed: self._on_call_closed,
            UsageReported: self._on_usage,
            ResponseIdentified: self._on_response_identified,
            StreamFailure: self._on_failure,
            StopReasonSeen: self._on_stop_reason,
            ServerToolUsed: self._on_server_tool,
            TurnEnd: self._on_turn_end,
        }

    @property
    def ended(self) -> bool:
        """True once the terminal event was decoded; later events are ignored."""
        return self._end is not None

    def feed(self, event: StreamEvent) -> Progress | None:
        if self._end is not None:
            return None
        return self._handlers[type(event)](event)

    def take_sizes(self) -> list[ToolArgumentsReceived]:
        """Running argument byte counts of the calls that grew since the last call."""
        if not self._grown:
            return []
        sizes = [ToolArgumentsReceived(c.position, c.size) for c in self._grown.values()]
        self._grown.clear()
        return sizes

    # -- handlers -------------------------------------------------------------------------

    def _on_server_tool(self, event: ServerToolUsed) -> Progress | None:
        return event  # shown as it is: it ran at the provider, nothing of it runs here

    def _on_text(self, event: TextDelta) -> Progress | None:
        if not event.text:
            return None
        self._text.append(event.text)
        return event

    def _on_reasoning(self, event: ReasoningDelta) -> Progress | None:
        if not event.text:
            return None
        self._reasoning.append(event.text)
        return event

    def _call(self, key: Hashable) -> tuple[_CallBuffer, bool]:
        call = self._calls.get(key)
        if call is not None:
            return call, False
        call = _CallBuffer(len(self._calls), "", "")
        self._calls[key] = call
        return call, True

    def _on_call_started(self, event: ToolCallStarted) -> Progress | None:
        call, new = self._call(event.key)
        changed = new
        if event.call_id and not call.call_id:
            call.call_id = event.call_id
            changed = True
        if event.name and not call.name:
            call.name = event.name
            changed = True
        if not changed:
            return None
        return ToolCallAnnounced(call.position, call.call_id, call.name)

    def _on_arguments_delta(self, event: ToolArgumentsDelta) -> Progress | None:
        fragment = event.fragment
        if not fragment:
            return None
        call, _ = self._call(event.key)
        # A server that re-sends the complete arguments already buffered: keep one copy.
        # Only a complete JSON value can be repeated this way, so appending would break it.
        if (
            call.chars
            and len(fragment) == call.chars
            and fragment == "".join(call.parts)
            and is_json(fragment)
        ):
            return None
        call.parts.append(fragment)
        call.chars += len(fragment)
        call.size += len(fragment) if fragment.isascii() else _utf8_size(fragment)
        self._grown[call.position] = call
        return None

    def _on_arguments_final(self, event: ToolArgumentsFinal) -> Progress | None:
        call, _ = self._call(event.key)
        if not event.arguments and call.chars:
            return None
        call.final = event.arguments
        size = _utf8_size(event.arguments)
        if size > call.size:
            call.size = size
            self._grown[call.position] = call
        return None

    def _on_arguments_progress(self, event: ToolArgumentsProgress) -> Progress | None:
        call, _ = self._call(event.key)
        call.size += event.size
        self._grown[call.position] = call
        return None

    def _on_call_closed(self, event: ToolCallClosed) -> Progress | None:
        call = self._calls.get(event.key)
        if call is not None:
            call.closed = True
        return None

    def _on_usage(self, event: UsageReported) -> Progress | None:
        # Merged by field: Anthropic's input tokens (message_start) survive its message_delta.
        self._usage = merge_usage(self._usage, event.usage)
        return None

    def _on_response_identified(self, event: ResponseIdentified) -> Progress | None:
        if self._response_id is None and event.response_id:
            self._response_id = event.response_id
        return None

    def _on_failure(self, event: StreamFailure) -> Progress | None:
        self._failed = True
        self._limited = self._limited or event.kind == "limit"
        if self._error is None:
            self._error = event.message or "the provider reported an error"
        return None

    def _on_stop_reason(self, event: StopReasonSeen) -> Progress | None:
        self._stop_reason = event.stop_reason
        return None

    def _on_turn_end(self, event: TurnEnd) -> Progress | None:
        self._end = event
        if event.stop_reason is not None:
            self._stop_reason = event.stop_reason
        return None

    # -- the result -----------------------------------------------------------------------

    def _call_id(self, call: _CallBuffer) -> tuple[str, bool]:
        if call.call_id:
            return call.call_id, False
        return f"tui_{self._response_id or 'response'}_{call.position}", True

    def _truncation(self) -> TruncationReason | None:
        end = self._end
        if self._limited:
            return "limit"
        if end is None:
            return "error" if self._failed else "cut"
        if end.lax and end.stop_reason is None:
            reason: TruncationReason | None = None
            if any(not is_json(c.arguments()) for c in self._calls.values()):
                reason = "incomplete"
        else:
            reason = classify(end.stop_reason)
        if reason is None and self._failed:
            reason = "error"
        if reason is None and self._budget_spent():
            reason = "length"
        return reason

    def _budget_spent(self) -> bool:
        """The usage shows the output budget spent while the turn has something in it (a call,
        text or reasoning): it was cut by the limit, as a ``length`` stop says."""
        limit, count = self._output_limit, self._output_tokens
        if limit is None or count is None or limit <= 0:
            return False
        if not (self._calls or self._text or self._reasoning):
            return False
        return count(self._usage) >= limit

    def finish(self) -> TurnResult:
        """The one result of this turn: complete only if the terminal event ended it normally."""
        text = _join_surrogate_pairs("".join(self._text))
        reasoning = _join_surrogate_pairs("".join(self._reasoning))
        stop_reason = self._stop_reason
        reason = self._truncation()
        if reason is None:
            calls = []
            for call in self._calls.values():
                call_id, synthetic = self._call_id(call)
                calls.append(ToolCall(call_id, call.name, call.arguments(), synthetic))
            return Turn(text, reasoning, tuple(calls), stop_reason, self._usage, self._response_id)
        pending = tuple(PendingCall(self._call_id(c)[0], c.name) for c in self._calls.values())
        return TruncatedTurn(
            reason,
            text,
            reasoning,
            pending,
            stop_reason,
            self._usage,
            self._error,
            self._response_id,
        )
