"""A task call's subagent inside the task's card: one line with its agent, turn, tokens, context
and current step, opened with Enter (or a click) to list its calls, one line each, with their
states and the first line of each result. Collapsed by default. Drawn from a ``SubagentModel``
the router keeps up to date (``ui/subagent_progress.py``); the card may be rebuilt on the same
model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget

from ..sanitize import exact_text

States = Mapping[str, tuple[str, str]]  # state -> (icon, label): the card's (tool_card.py)


@dataclass(eq=False)
class SubagentCall:
    call_id: str
    name: str
    state: str = "waiting"
    summary: str = ""
    result: str = ""  # the first line of its result, once it has one


@dataclass(eq=False)
class SubagentModel:
    agent: str
    turn: int = 0
    tokens: int = 0
    context: int = 0  # the tokens its own conversation holds (not the session's)
    step: str = "starting"
    calls: list[SubagentCall] = field(default_factory=list)
    expanded: bool = False

    def call(self, call_id: str, name: str = "") -> SubagentCall:
        found = next((c for c in self.calls if c.call_id == call_id), None)
        if found is None:
            found = SubagentCall(call_id, name)
            self.calls.append(found)
        return found


OPEN_HINT = "Enter opens its calls"
CLOSE_HINT = "Enter closes"


def subagent_text(model: SubagentModel, states: States) -> Text:
    """The header line, then (opened) one line per call."""
    text = Text(end="")
    text.append("▾ " if model.expanded else "▸ ")
    text.append("subagent ")
    text.append_text(exact_text(model.agent, "bold", one_line=True))
    facts = [f"turn {model.turn}"] if model.turn else []
    facts.append(f"{len(model.calls)} call{'' if len(model.calls) == 1 else 's'}")
    if model.tokens:
        facts.append(f"{model.tokens:,} tokens")
    if model.context:
        facts.append(f"ctx {model.context:,}")
    text.append(" · " + " · ".join(facts), "dim")
    text.append(" · ")
    text.append_text(exact_text(model.step, "italic", one_line=True))
    if model.calls:
        text.append(f"  · {CLOSE_HINT if model.expanded else OPEN_HINT}", "dim italic")
    if not model.expanded:
        return text
    for call in model.calls:
        icon, label = states.get(call.state, ("•", f"{call.state}:"))
        text.append(f"\n    {icon} {label} ")
        text.append_text(exact_text(call.name or "(unnamed tool)", "bold", one_line=True))
        if call.summary:
            text.append("  ")
            text.append_text(exact_text(call.summary, "italic", one_line=True))
        if call.result:
            text.append("  → ", "dim")
            text.append_text(exact_text(call.result, "dim", one_line=True))
    return text


class SubagentView(Widget, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_calls", "Show calls")]

    DEFAULT_CSS = """
    SubagentView {
        height: auto;
        color: $text-muted;
        &:focus {
            background: $block-cursor-blurred-background;
        }
    }
    """

    def __init__(self, model: SubagentModel, states: States) -> None:
        super().__init__()
        self.model = model
        self.states = states

    def render(self) -> Text:
        return subagent_text(self.model, self.states)

    def action_toggle_calls(self) -> None:
        self.model.expanded = not self.model.expanded
        self.refresh(layout=True)

    def on_click(self) -> None:
        self.action_toggle_calls()
