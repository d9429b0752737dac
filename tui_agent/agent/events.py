"""What the agent loop tells the layer above (the app, or `tui-agent run`), in order.

Streaming progress arrives as the stream vocabulary's own safe objects (TextDelta,
ReasoningDelta, ToolCallAnnounced, ToolArgumentsReceived, ServerToolUsed) and RetryWait; the rest is
one of the events below. ``event_to_json`` gives each a flat JSON object with a "type".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from ..call_outcome import CallStatus, DecidedBy, DecisionKind
from ..context.events import (
    Compacted,
    CompactionFailed,
    CompactionStarted,
    ContextOverflow,
    ContextUpdate,
    ResultsCut,
)
from ..conversation import ImagePart
from ..stream.events import ReasoningDelta, ServerToolUsed, TextDelta
from ..stream.progress import RetryWait, ToolArgumentsReceived, ToolCallAnnounced
from ..stream.turn import TruncatedTurn, Turn


@dataclass(frozen=True, slots=True)
class TurnStarted:
    step: int  # 1 for the answer to the user's message, then one per round of tool results


@dataclass(frozen=True, slots=True)
class TurnCompleted:
    turn: Turn
    tokens: int = 0  # what the turn's usage counts, read as its protocol reports it
    cost: float | None = None  # US dollars (agent/cost_meter.py); None: unknown
    spent: str = ""  # the session's cost as the status line shows it ("": nothing to show)


@dataclass(frozen=True, slots=True)
class TurnTruncated:
    turn: TruncatedTurn
    message: str  # one line for the user: why nothing of this turn was kept


@dataclass(frozen=True, slots=True)
class CallInvalid:
    call_id: str
    name: str
    error: str  # also what the model receives as the call's result


@dataclass(frozen=True, slots=True)
class CallDecided:
    call_id: str
    name: str
    decision: DecisionKind  # never "invalid": an invalid call is CallInvalid
    by: DecidedBy
    reason: str | None = None
    arguments: str | None = None  # for "edit": the edited arguments that run (canonical JSON)


@dataclass(frozen=True, slots=True)
class ToolStarted:
    call_id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolFinished:
    call_id: str
    name: str
    status: CallStatus
    output: str  # what the model receives (already capped)
    is_error: bool
    images: tuple[ImagePart, ...] = ()  # sent with it (read_file of an image, MCP images)


@dataclass(frozen=True, slots=True)
class HookFinished:
    """One hook ran (hooks/): at which moment, for which call ("" outside a tool call), and its
    verdict ("ok", "block", "deny", "ask", "allow", "timed out", "failed")."""

    event: str
    hook: str
    call_id: str
    verdict: str
    seconds: float
    reason: str = ""  # sanitized and capped by the runner
    source: str = "config"  # "config" (the person's) or "workspace"


NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    level: NoticeLevel = "info"


@dataclass(frozen=True, slots=True)
class PlanEntry:
    """One entry of an agent's plan: ``status`` pending, in_progress or completed; ``priority``
    high, medium or low (as the agent said: untrusted, shown sanitized)."""

    content: str
    status: str = "pending"
    priority: str = "medium"


@dataclass(frozen=True, slots=True)
class PlanUpdated(Notice):
    """An ACP agent's plan, whole (each update replaces the one before). A Notice whose text
    is the plan as lines, for what shows it as text (``tui-agent run``); the app shows the
    entries as a plan block that updates in place."""

    entries: tuple[PlanEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class LoopEnded:
    outcome: Literal["complete", "truncated", "cancelled", "max_steps", "max_cost"]
    message: str = ""


@dataclass(frozen=True, slots=True)
class SubagentEvent:
    """What a subagent's loop told, as it happened, under the task call that started it
    (``agent/subagent.py``): its own turns, decisions, calls and context, never the
    conversation's."""

    call_id: str  # the task call's
    agent: str  # the subagent's name
    event: AgentEvent


AgentEvent = (
    TextDelta
    | ReasoningDelta
    | ServerToolUsed
    | ToolCallAnnounced
    | ToolArgumentsReceived
    | RetryWait
    | TurnStarted
    | TurnCompleted
    | TurnTruncated
    | CallInvalid
    | CallDecided
    | ToolStarted
    | ToolFinished
    | HookFinished
    | Notice
    | PlanUpdated
    | LoopEnded
    | ContextUpdate
    | CompactionStarted
    | Compacted
    | CompactionFailed
    | ResultsCut
    | ContextOverflow
    | SubagentEvent
)

_TYPE_NAMES: dict[type, str] = {
    TextDelta: "text",
    ReasoningDelta: "reasoning",
    ServerToolUsed: "server_tool",
    ToolCallAnnounced: "tool_call_announced",
    ToolArgumentsReceived: "tool_arguments_received",
    RetryWait: "retry_wait",
    TurnStarted: "turn_started",
    TurnCompleted: "turn_completed",
    TurnTruncated: "turn_truncated",
    CallInvalid: "call_invalid",
    CallDecided: "call_decided",
    ToolStarted: "tool_started",
    ToolFinished: "tool_finished",
    HookFinished: "hook_finished",
    Notice: "notice",
    PlanUpdated: "notice",  # as it was before the app showed plans apart: its text
    LoopEnded: "loop_ended",
    ContextUpdate: "context",
    CompactionStarted: "compaction_started",
    Compacted: "compacted",
    CompactionFailed: "compaction_failed",
    ResultsCut: "results_cut",
    ContextOverflow: "context_overflow",
    SubagentEvent: "subagent",
}


def event_to_json(event: AgentEvent) -> dict[str, Any]:
    """One flat JSON object per event, with a "type"; turns use the parse command's shape."""
    out: dict[str, Any] = {"type": _TYPE_NAMES[type(event)]}
    if isinstance(event, SubagentEvent):
        out.update(call_id=event.call_id, agent=event.agent, event=event_to_json(event.event))
        return out
    if isinstance(event, TurnCompleted | TurnTruncated):
        out["turn"] = event.turn.to_dict()
        if isinstance(event, TurnCompleted):
            out["cost"] = event.cost
        if isinstance(event, TurnTruncated):
            out["message"] = event.message
        return out
    if isinstance(event, PlanUpdated):
        out.update(text=event.text, level=event.level)
        return out
    out.update(dataclasses.asdict(event))
    if isinstance(event, ToolFinished):  # an image as what it is, never its bytes
        out["images"] = [
            {
                "media_type": image.media_type,
                "width": image.width,
                "height": image.height,
                "size": len(image.data),
                "digest": image.digest,
            }
            for image in event.images
        ]
    return out
