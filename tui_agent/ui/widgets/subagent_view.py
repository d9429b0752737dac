"""A task call's subagent inside the task's card: one line with its agent, turn, calls, tokens,
its own context and current step; Enter (or a click) on it opens its calls, each a nested card
with its state, its arguments' summary and its result (opened with Enter, as any card's).
Collapsed by default. Drawn from a ``SubagentModel`` the router keeps up to date
(``ui/subagent_progress.py``); the card may be rebuilt on the same model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from ..sanitize import exact_text
from .tool_result import ToolResultView

States = Mapping[str, tuple[str, str]]  # state -> (icon, label): the card's (tool_card.py)


@dataclass(eq=False)
class SubagentCall:
    """One of the subagent's calls (its result view reads ``output``, ``is_error`` and
    ``expanded`` as a card's model)."""

    call_id: str
    name: str
    state: str = "waiting"
    summary: str = ""
    output: str | None = None
    is_error: bool = False
    expanded: bool = False


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


def subagent_text(model: SubagentModel) -> Text:
    """The subagent's one line."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
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
    return text


def call_text(call: SubagentCall, states: States) -> Text:
    """A nested call's line: its state, its tool and its arguments' summary."""
    icon, label = states.get(call.state, ("•", f"{call.state}:"))
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(f"{icon} ", "bold")
    text.append(f"{label} ")
    text.append_text(exact_text(call.name or "(unnamed tool)", "bold", one_line=True))
    if call.summary:
        text.append("  ")
        text.append_text(exact_text(call.summary, "italic", one_line=True))
    return text


class SubagentLine(Widget, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_calls", "Show calls")]

    DEFAULT_CSS = """
    SubagentLine {
        height: 1;
        &:focus {
            background: $block-cursor-blurred-background;
        }
    }
    """

    def __init__(self, model: SubagentModel) -> None:
        super().__init__()
        self.model = model

    def render(self) -> Text:
        return subagent_text(self.model)

    def action_toggle_calls(self) -> None:
        view = self.parent
        if isinstance(view, SubagentView):
            view.toggle()

    def on_click(self) -> None:
        self.action_toggle_calls()


class NestedCall(Vertical):
    """One of the subagent's calls, as a small card of its own."""

    DEFAULT_CSS = """
    NestedCall {
        height: auto;
        margin: 0 0 0 2;
        padding: 0 1;
        border-left: outer $panel;
        & > .line { height: 1; }
        &.-done { border-left: outer $success; }
        &.-running { border-left: outer $primary; }
        &.-failed, &.-denied, &.-invalid { border-left: outer $error; }
        &.-waiting, &.-interrupted { border-left: outer $warning; }
    }
    """

    def __init__(self, call: SubagentCall, states: States) -> None:
        super().__init__()
        self.call = call
        self.states = states
        self._line = Static(classes="line")
        self._result: ToolResultView | None = None
        self._shown_state = ""

    def compose(self) -> ComposeResult:
        yield self._line

    def on_mount(self) -> None:
        self.sync()

    def sync(self) -> None:
        call = self.call
        self._line.update(call_text(call, self.states))
        if call.state != self._shown_state:
            if self._shown_state:
                self.remove_class(f"-{self._shown_state}")
            self._shown_state = call.state
            self.add_class(f"-{call.state}")
        if call.output is not None and self._result is None:
            self._result = ToolResultView(call)
            self.mount(self._result)


class SubagentView(Vertical):
    """The subagent's line and, opened, its calls."""

    DEFAULT_CSS = """
    SubagentView {
        height: auto;
        color: $text-muted;
        & > .calls { height: auto; display: none; }
        &.-expanded > .calls { display: block; }
    }
    """

    def __init__(self, model: SubagentModel, states: States) -> None:
        super().__init__()
        self.model = model
        self.states = states
        self._line = SubagentLine(model)
        self._calls = Vertical(classes="calls")
        self._nested: dict[str, NestedCall] = {}

    def compose(self) -> ComposeResult:
        yield self._line
        yield self._calls

    def on_mount(self) -> None:
        self.sync()

    def toggle(self) -> None:
        self.model.expanded = not self.model.expanded
        self.sync()

    def sync(self) -> None:
        """Show the model as it is now: the line, the calls (new ones mounted)."""
        self.set_class(self.model.expanded, "-expanded")
        self._line.refresh()
        for call in self.model.calls:
            nested = self._nested.get(call.call_id)
            if nested is None:
                nested = self._nested[call.call_id] = NestedCall(call, self.states)
                self._calls.mount(nested)
            elif nested.is_mounted:
                nested.sync()

    def nested_calls(self) -> list[NestedCall]:
        return list(self._nested.values())
