"""What a subagent's events change on its task's card (``widgets/subagent_view.py``): the
router's part for ``SubagentEvent``. Its text is not streamed to the screen (its answer is
the task's result); its turns, calls, tokens and context are its own, never the session's
status line."""

from __future__ import annotations

from ..agent.events import (
    AgentEvent,
    CallDecided,
    CallInvalid,
    LoopEnded,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
)
from ..context.events import ContextUpdate
from ..stream.events import ReasoningDelta, TextDelta
from ..stream.progress import ToolCallAnnounced
from .widgets.subagent_view import SubagentModel

DECISION_STATES = {
    "approve": "approved",
    "edit": "approved",
    "deny": "denied",
    "cancel": "cancelled",
    "refused": "denied",
}


def _summary(arguments: str) -> str:
    text = " ".join(arguments.split())
    return text if len(text) <= 80 else text[:79] + "…"


def follow(model: SubagentModel, event: AgentEvent) -> bool:
    """Change ``model`` by one of its subagent's events; False when nothing shown changed."""
    match event:
        case TextDelta() | ReasoningDelta():
            if model.step == "writing":
                return False
            model.step = "writing"
        case ToolCallAnnounced():
            model.step = f"preparing {event.name}" if event.name else "preparing a call"
        case TurnStarted():
            model.turn = event.step
            model.step = "waiting for the model"
        case TurnCompleted():
            model.tokens += event.tokens
            for call in event.turn.tool_calls:
                shown = model.call(call.id, call.name)
                shown.summary = _summary(call.arguments)
            model.step = "deciding" if event.turn.tool_calls else "answered"
        case TurnTruncated():
            model.step = f"turn cut: {event.message}"
        case CallInvalid():
            model.call(event.call_id, event.name).state = "invalid"
        case CallDecided():
            state = DECISION_STATES.get(event.decision, event.decision)
            model.call(event.call_id, event.name).state = state
        case ToolStarted():
            model.call(event.call_id, event.name).state = "running"
            model.step = f"running {event.name}"
        case ToolFinished():
            shown = model.call(event.call_id, event.name)
            shown.state = event.status
            shown.output, shown.is_error = event.output, event.is_error
        case ContextUpdate():
            if model.context == event.used:
                return False
            model.context = event.used
        case LoopEnded():
            model.step = "finished" if event.outcome == "complete" else event.outcome
        case SubagentEvent():
            model.step = f"its subagent {event.agent} is working"
        case _:
            return False
    return True
