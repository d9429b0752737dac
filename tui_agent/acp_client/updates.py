"""One ``session/prompt`` of an ACP agent as the loop's own events and records.

The agent runs its own loop; what it reports (``session/update``) is read here in the JSON form
the protocol sends (camelCase keys; no SDK import, so a replay reads the same records without
it). The prompt is shown as the loop's steps: text and thoughts stream as ``TextDelta`` and
``ReasoningDelta`` of a step; a ``tool_call`` ends the step as a complete turn holding that one
call (an ``assistant`` record), so the call gets the same card, decision, start and result
(``decision``, ``tool_start``, ``tool_result`` records) as one of tui-agent's own; text after it
opens the next step. The prompt's stop reason ends the last step: ``end_turn`` completes it;
``cancelled``, ``max_tokens``, ``refusal`` or a failed request discard it (a ``truncated``
record, never an assistant turn), as the loop does with a truncated turn.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agent.events import (
    AgentEvent,
    CallDecided,
    LoopEnded,
    Notice,
    PlanEntry,
    PlanUpdated,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
)
from ..agent.turn_record import turn_record
from ..call_outcome import CallStatus, DecidedBy, DecisionKind
from ..session.records import (
    DecisionRecord,
    RawEvent,
    Record,
    ToolResultRecord,
    ToolStartRecord,
)
from ..stream.events import ReasoningDelta, TextDelta
from ..stream.progress import Progress, ToolCallAnnounced
from ..stream.turn import ToolCall, TruncatedTurn, TruncationReason, Turn

PROTOCOL = "acp"  # the protocol of the records an ACP session writes
UPDATE_EVENT = "session/update"  # the name a recorded update is kept under (RawEvent.event)
MAX_OUTPUT_CHARS = 65536  # of one call's shown result (its diff, its text)
DENIED = "denied: the agent was told not to run it"

# ACP tool kinds as the approval rules' risks: what the agent says it does, never trusted to
# be less (an unknown kind is treated as a program it runs).
KIND_RISK = {
    "read": "read",
    "search": "read",
    "think": "read",
    "edit": "write",
    "delete": "write",
    "move": "write",
    "execute": "execute",
    "fetch": "network",
}


def risk_of(kind: str | None) -> str:
    return KIND_RISK.get(kind or "", "execute")


@dataclass
class AcpCall:
    """What is known of one of the agent's tool calls (updates merge into it)."""

    id: str
    title: str = ""
    kind: str = "other"
    status: str = "pending"
    locations: list[str] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None
    content: list[dict[str, Any]] = field(default_factory=list)
    started: bool = False
    finished: bool = False
    decision: DecisionKind | None = None

    @property
    def name(self) -> str:
        return self.title or self.kind or "tool"

    def merge(self, update: dict[str, Any]) -> None:
        if isinstance(update.get("title"), str) and update["title"]:
            self.title = update["title"]
        if isinstance(update.get("kind"), str):
            self.kind = update["kind"]
        if isinstance(update.get("status"), str):
            self.status = update["status"]
        if isinstance(update.get("locations"), list):
            self.locations = [
                _location(item) for item in update["locations"] if isinstance(item, dict)
            ]
        if "rawInput" in update:
            self.raw_input = update["rawInput"]
        if "rawOutput" in update:
            self.raw_output = update["rawOutput"]
        if isinstance(update.get("content"), list):
            self.content = [item for item in update["content"] if isinstance(item, dict)]

    def arguments(self) -> dict[str, Any]:
        """What the card and the approval prompt show of the call (what the agent said)."""
        shown: dict[str, Any] = {"kind": self.kind, "title": self.title}
        if self.locations:
            shown["locations"] = self.locations
        if self.raw_input is not None:
            shown["input"] = self.raw_input
        return shown

    def canonical(self) -> str:
        return json.dumps(self.arguments(), sort_keys=True, ensure_ascii=False, default=str)

    def digest(self) -> str:
        return hashlib.sha256(self.canonical().encode("utf-8", "replace")).hexdigest()

    def output(self, terminal: Callable[[str], str] | None = None) -> str:
        """The call's result as text: its content (text, diffs as unified diffs, a terminal's
        output through ``terminal``)."""
        parts: list[str] = []
        for item in self.content:
            kind = item.get("type")
            if kind == "diff":
                parts.append(_diff(item))
            elif kind == "content":
                block = item.get("content")
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    parts.append(block["text"])
            elif kind == "terminal":
                terminal_id = str(item.get("terminalId", ""))
                parts.append(terminal(terminal_id) if terminal else f"[terminal {terminal_id}]")
        if not parts and self.raw_output is not None:
            raw = self.raw_output
            parts.append(raw if isinstance(raw, str) else json.dumps(raw, default=str))
        text = "\n".join(parts)
        if len(text) > MAX_OUTPUT_CHARS:
            text = text[:MAX_OUTPUT_CHARS] + f"\n… ({len(text) - MAX_OUTPUT_CHARS} more characters)"
        return text


def _location(item: dict[str, Any]) -> str:
    path = str(item.get("path", ""))
    line = item.get("line")
    return f"{path}:{line}" if isinstance(line, int) else path


def _diff(item: dict[str, Any]) -> str:
    path = str(item.get("path", ""))
    old = item.get("oldText")
    new = item.get("newText")
    old_lines = old.splitlines(keepends=True) if isinstance(old, str) else []
    new_lines = new.splitlines(keepends=True) if isinstance(new, str) else []
    before = path if isinstance(old, str) else "/dev/null"
    lines = difflib.unified_diff(old_lines, new_lines, before, path)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip("\n")


def text_of(update: dict[str, Any]) -> str:
    """The text of a message or thought chunk ("" for an image, audio, a resource)."""
    content = update.get("content")
    if isinstance(content, dict) and content.get("type") == "text":
        text = content.get("text")
        return text if isinstance(text, str) else ""
    return ""


def plan_of(update: dict[str, Any]) -> PlanUpdated:
    """The agent's plan update as an event: its entries, and their text for a notice."""
    entries = tuple(
        PlanEntry(
            str(entry.get("content", "")),
            str(entry.get("status", "pending")),
            str(entry.get("priority", "medium")),
        )
        for entry in update.get("entries") or []
        if isinstance(entry, dict)
    )
    return PlanUpdated(plan_text(update), entries=entries)


def plan_text(update: dict[str, Any]) -> str:
    """The agent's plan as lines: a mark for each entry's status, then the entry."""
    marks = {"completed": "[x]", "in_progress": "[>]"}
    lines = ["plan:"]
    for entry in update.get("entries") or []:
        if isinstance(entry, dict):
            mark = marks.get(str(entry.get("status")), "[ ]")
            lines.append(f"{mark} {entry.get('content', '')}")
    return "\n".join(lines)


Emit = Callable[[AgentEvent], None]
Write = Callable[[Record], None]

_STOPS: dict[str, tuple[TruncationReason, str]] = {
    "max_tokens": ("length", "truncated"),
    "refusal": ("filtered", "truncated"),
    "cancelled": ("cut", "cancelled"),
}


class PromptTurn:
    """One ``session/prompt``: ``update`` for each notification, ``ask``/``decided`` around a
    permission request, ``finish`` with the prompt's stop reason (or the error that ended it)."""

    def __init__(
        self,
        model: str,
        emit: Emit,
        write: Write,
        calls: dict[str, AcpCall] | None = None,
        now: Callable[[], float] = time.monotonic,
        terminal: Callable[[str], str] | None = None,
    ) -> None:
        self.model = model
        self.emit = emit
        self.write = write
        self.calls = calls if calls is not None else {}  # the session's, across prompts
        self.now = now
        self.terminal = terminal  # a terminal's output by id, for a call's result
        self.step = 0
        self.open = False
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._raw: list[RawEvent] = []
        self._opened_at = now()
        self._mine: list[str] = []  # this prompt's calls, in order
        self.commands: list[dict[str, Any]] | None = None  # the last commands advertised

    # -- the agent's updates -------------------------------------------------------------

    def update(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            text = text_of(update)
            if not text:
                return
            self._open()
            self._keep(update)
            if kind == "agent_message_chunk":
                self._text.append(text)
                self.emit(TextDelta(text))
            else:
                self._reasoning.append(text)
                self.emit(ReasoningDelta(text))
        elif kind in ("tool_call", "tool_call_update"):
            call_id = update.get("toolCallId")
            if not isinstance(call_id, str) or not call_id:
                return
            known = self.calls.get(call_id)
            if known is None:
                self._open()
                self._keep(update)
                self.announce(call_id, update)
            else:
                known.merge(update)
                self._progress(known)
        elif kind == "plan":
            self.emit(plan_of(update))
        elif kind == "available_commands_update":
            commands = update.get("availableCommands")
            if isinstance(commands, list):
                self.commands = [c for c in commands if isinstance(c, dict)]

    def announce(self, call_id: str, update: dict[str, Any]) -> AcpCall:
        """A call the agent started: it ends the step as a complete turn holding it."""
        call = self.calls.get(call_id)
        if call is not None:
            return call
        call = AcpCall(call_id)
        call.merge(update)
        self.calls[call_id] = call
        self._mine.append(call_id)
        self._open()
        self.emit(ToolCallAnnounced(0, call_id, call.name))
        turn = Turn(
            text="".join(self._text),
            reasoning="".join(self._reasoning),
            tool_calls=(ToolCall(call_id, call.name, call.canonical()),),
            stop_reason="tool_use",
            usage=None,
        )
        self._close(turn)
        self.emit(TurnCompleted(turn))
        self._progress(call)
        return call

    def decided(
        self, call: AcpCall, decision: DecisionKind, by: DecidedBy, reason: str | None = None
    ) -> None:
        """The answer to the agent's permission request for ``call``."""
        call.decision = decision
        self.write(
            DecisionRecord(
                call_id=call.id, decision=decision, digest=call.digest(), by=by, reason=reason
            )
        )
        self.emit(CallDecided(call.id, call.name, decision, by, reason))

    def _progress(self, call: AcpCall) -> None:
        if call.status in ("in_progress", "completed", "failed") and not call.started:
            call.started = True
            self.write(ToolStartRecord(call_id=call.id, digest=call.digest()))
            self.emit(ToolStarted(call.id, call.name))
        if call.status in ("completed", "failed") and not call.finished:
            if call.decision == "deny":  # the agent reports the refused call as failed
                self._result(call, "denied", call.output(self.terminal) or DENIED, True)
            else:
                failed = call.status == "failed"
                output = call.output(self.terminal)
                self._result(call, "failed" if failed else "done", output, failed)

    def _result(self, call: AcpCall, status: CallStatus, output: str, is_error: bool) -> None:
        call.finished = True
        self.write(
            ToolResultRecord(
                call_id=call.id, name=call.name, output=output, is_error=is_error, status=status
            )
        )
        self.emit(ToolFinished(call.id, call.name, status, output, is_error))

    # -- the prompt's end ----------------------------------------------------------------

    def finish(self, stop_reason: str | None, error: str | None = None) -> LoopEnded:
        """The prompt answered (``stop_reason``) or failed (``error``): the last step ends,
        every call of this prompt gets its result, and the loop's end is emitted."""
        ended: LoopEnded
        if error is None and stop_reason in ("end_turn", "max_turn_requests", None):
            if self.open or self.step == 0:
                self._open()
                turn = Turn(
                    text="".join(self._text),
                    reasoning="".join(self._reasoning),
                    tool_calls=(),
                    stop_reason=stop_reason,
                    usage=None,
                )
                self._close(turn)
                self.emit(TurnCompleted(turn))
            if stop_reason == "max_turn_requests":
                ended = LoopEnded("max_steps", "the agent stopped: it reached its turn limit")
            else:
                ended = LoopEnded("complete")
            self._settle("done", "the agent did not say how this call ended")
        else:
            reason, outcome = _STOPS.get(stop_reason or "", ("error", "truncated"))
            truncated = TruncatedTurn(
                reason=reason,
                text="".join(self._text),
                reasoning="".join(self._reasoning),
                pending_calls=(),
                stop_reason=stop_reason,
                usage=None,
                error=error,
            )
            if self.open:
                self.write(turn_record(truncated, self._raw, PROTOCOL, self.model))
                self.emit(TurnTruncated(truncated, truncated.describe()))
            elif error is not None:
                self.emit(Notice(f"the agent failed: {error}", "error"))
            self.open = False
            if outcome == "cancelled":
                self._settle("cancelled", "cancelled")
                ended = LoopEnded("cancelled")
            else:
                self._settle("interrupted", "the agent's turn ended before this call did")
                ended = LoopEnded("truncated", truncated.describe())
        self.emit(ended)
        return ended

    def _settle(self, status: CallStatus, output: str) -> None:
        for call_id in self._mine:
            call = self.calls[call_id]
            if call.finished:
                continue
            if call.decision == "deny":
                self._result(call, "denied", DENIED, True)
            elif call.decision == "cancel":
                self._result(call, "cancelled", "cancelled", True)
            else:
                self._result(call, status, output, status != "done")

    # -- steps ---------------------------------------------------------------------------

    def _open(self) -> None:
        if self.open:
            return
        self.open = True
        self.step += 1
        self._text, self._reasoning, self._raw = [], [], []
        self._opened_at = self.now()
        self.emit(TurnStarted(self.step))

    def _keep(self, update: dict[str, Any]) -> None:
        data = json.dumps(update, ensure_ascii=False, default=str)
        self._raw.append(RawEvent(round(self.now() - self._opened_at, 6), UPDATE_EVENT, data))

    def _close(self, turn: Turn) -> None:
        self.write(turn_record(turn, self._raw, PROTOCOL, self.model))
        self.open = False


def replayed_step(raw: list[RawEvent]) -> tuple[list[tuple[float, Progress]], Turn]:
    """A recorded step's updates as they streamed (each with the pause before it), and the
    turn they make, for ``tui-agent replay`` (replay/script.py)."""
    shown: list[tuple[float, Progress]] = []
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    previous = 0.0
    for event in raw:
        delay = max(0.0, event.t - previous)
        previous = max(previous, event.t)
        try:
            update = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(update, dict):
            continue
        kind = update.get("sessionUpdate")
        if kind in ("agent_message_chunk", "agent_thought_chunk") and (piece := text_of(update)):
            if kind == "agent_message_chunk":
                text.append(piece)
                shown.append((delay, TextDelta(piece)))
            else:
                reasoning.append(piece)
                shown.append((delay, ReasoningDelta(piece)))
        call_id = update.get("toolCallId")
        if kind in ("tool_call", "tool_call_update") and isinstance(call_id, str):
            call = AcpCall(call_id)
            call.merge(update)
            calls.append(ToolCall(call.id, call.name, call.canonical()))
            shown.append((delay, ToolCallAnnounced(len(calls) - 1, call.id, call.name)))
    turn = Turn("".join(text), "".join(reasoning), tuple(calls), stop_reason=None, usage=None)
    return shown, turn
