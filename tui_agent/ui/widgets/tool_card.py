"""One tool call in the transcript, from the moment it is announced to its result.

While the call's arguments stream in, the card shows "preparing tool: NAME", a spinner, the
elapsed time and how many argument bytes arrived: never the arguments. There is no way to give
it argument text before the turn is complete; after, ``set_arguments_summary`` takes one short
line (made by the caller from the validated arguments).

The card's state lives in a ToolCallModel; the card is a view of it. The transcript may unmount
an old card and later mount a new one on the same model, so a caller holding the old card still
updates what is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual._context import NoActiveAppError
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from ..arming import Clock, clock
from ..sanitize import exact_text, safe_text
from .subagent_view import SubagentModel, SubagentView
from .tool_result import ToolResultView

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_S = 0.1
TICKING = frozenset({"preparing", "running"})
# state -> (icon, label); the spinner replaces the icon while ticking.
STATES: dict[str, tuple[str, str]] = {
    "preparing": ("", "preparing tool:"),
    "waiting": ("?", "waiting for approval:"),
    "approved": ("✔", "approved:"),
    "running": ("", "running:"),
    "done": ("✓", "done:"),
    "failed": ("✗", "failed:"),
    "denied": ("⊘", "denied:"),
    "cancelled": ("■", "cancelled:"),
    "cut": ("■", "not run, the turn was cut:"),
    "invalid": ("⚠", "invalid:"),
    "interrupted": ("↯", "interrupted:"),
}
_OTHER = ("•", "")


@dataclass(eq=False)
class ToolCallModel:
    """Everything a card shows; plain data, so a card can be rebuilt from it."""

    position: int
    call_id: str
    name: str
    state: str = "preparing"
    detail: str = ""
    nbytes: int = 0
    summary: str = ""
    output: str | None = None
    is_error: bool = False
    expanded: bool = False
    hooks: list[str] = field(default_factory=list)  # one line per hook that ran, in order
    subagent: SubagentModel | None = None  # a task call's subagent, once it started
    phase_started: float = 0.0  # clock time the current preparing or running phase began
    ran_for: float | None = None  # seconds the tool ran, once it stopped
    view: ToolCallCard | None = field(default=None, repr=False)

    def build(self) -> ToolCallCard:
        return ToolCallCard(self.position, self.call_id, self.name, model=self)


def _now(widget: Widget) -> float:
    """The time for elapsed times and the spinner: the app's clock (a real one for a card made
    outside any app), unless a test froze ``ToolCallCard.clock``."""
    frozen = ToolCallCard.clock
    if frozen is not None:
        return frozen()
    try:
        app = widget.app
    except NoActiveAppError:
        return Clock().now()
    return clock(app).now()


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 60 else f"{int(value) // 60} min {int(value) % 60:02d} s"


class CardHeader(Widget):
    """The card's one line, drawn from the model; repainted by the card's ticker (no layout)."""

    DEFAULT_CSS = """
    CardHeader {
        height: 1;
        width: 1fr;
    }
    """

    def __init__(self, model: ToolCallModel) -> None:
        super().__init__()
        self.model = model

    def render(self) -> Text:
        model = self.model
        now = _now(self)
        icon, label = STATES.get(model.state, _OTHER)
        if model.state in TICKING:
            icon = SPINNER[int(now / TICK_S) % len(SPINNER)]
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(f"{icon} ", "bold")
        text.append(f"{label} " if label else f"{model.state}: ")
        text.append_text(exact_text(model.name or "(unnamed tool)", "bold", one_line=True))
        if model.summary:
            text.append("  ")
            text.append_text(exact_text(model.summary, "italic", one_line=True))
        facts: list[str] = []
        if model.state in TICKING:
            facts.append(_seconds(max(0.0, now - model.phase_started)))
        elif model.ran_for is not None:
            facts.append(f"ran {_seconds(model.ran_for)}")
        if model.state == "preparing" or (model.nbytes and not model.summary):
            facts.append(f"{model.nbytes:,} bytes of arguments")
        if facts:
            text.append("  · " + " · ".join(facts), "dim")
        return text


class ToolCallCard(Vertical):
    """A tool call: name, state, timing, argument size, then a summary and the result."""

    # None: elapsed times and the spinner follow the app's clock. A snapshot test sets a
    # function here to freeze only them, while the app's own timers keep running.
    clock: ClassVar[Callable[[], float] | None] = None

    DEFAULT_CSS = """
    ToolCallCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: outer $secondary;
        background: $surface;
        & > .detail {
            height: auto;
            color: $text-muted;
            display: none;
        }
        &.-has-detail > .detail {
            display: block;
        }
        & > .hooks {
            height: auto;
            color: $text-muted;
            display: none;
        }
        &.-has-hooks > .hooks {
            display: block;
        }
        &.-preparing { border-left: outer $secondary; }
        &.-waiting { border-left: outer $warning; & > CardHeader { color: $text-warning; } }
        &.-approved { border-left: outer $success; }
        &.-running { border-left: outer $primary; & > CardHeader { color: $text-primary; } }
        &.-done { border-left: outer $success; & > CardHeader { color: $text-success; } }
        &.-failed { border-left: outer $error; & > CardHeader { color: $text-error; } }
        &.-denied { border-left: outer $error; & > CardHeader { color: $text-error; } }
        &.-cancelled { border-left: outer $panel; & > CardHeader { color: $text-muted; } }
        &.-cut { border-left: outer $panel; & > CardHeader { color: $text-muted; } }
        &.-invalid { border-left: outer $error; & > CardHeader { color: $text-error; } }
        &.-interrupted { border-left: outer $warning; & > CardHeader { color: $text-warning; } }
    }
    """

    def __init__(
        self, position: int, call_id: str, name: str, *, model: ToolCallModel | None = None
    ) -> None:
        super().__init__()
        self.model = model or ToolCallModel(position, call_id, name, phase_started=_now(self))
        self._header = CardHeader(self.model)
        self._detail = Static(classes="detail")
        self._hooks = Static(classes="hooks")
        self._shown_hooks = 0
        self._result: ToolResultView | None = None
        self._subagent: SubagentView | None = None
        self._timer: Timer | None = None
        self._shown_state = ""
        self._shown_detail = ""
        self._ticking = False

    # -- what the app calls -----------------------------------------------------------------

    @property
    def state(self) -> str:
        return self.model.state

    @property
    def ticking(self) -> bool:
        """Whether the spinner and the elapsed time are moving (preparing or running)."""
        return self._ticking

    def set_name(self, name: str) -> None:
        """The call's name became known (or changed before it was complete)."""
        self.model.name = name
        self._update()

    def set_bytes(self, size: int) -> None:
        """``size`` bytes of arguments have arrived so far (a running total)."""
        self.model.nbytes = size
        view = self.model.view
        if view is not None:
            view._header.refresh()

    def set_state(self, state: str, detail: str | None = None) -> None:
        """preparing -> waiting -> approved -> running -> done / failed / denied / cancelled /
        invalid / interrupted; ``cut`` when the turn ended before it was complete. ``detail``
        (a reason, an error) replaces the detail line; None keeps it."""
        model = self.model
        now = _now(self)
        if model.state == "running" and state != "running":
            model.ran_for = now - model.phase_started
        if state in TICKING and state != model.state:
            model.phase_started = now
        model.state = state
        if detail is not None:
            model.detail = detail
        self._update()

    def add_hook(self, line: str) -> None:
        """A hook ran for this call: one line saying which, and its verdict."""
        self.model.hooks.append(line)
        self._update()

    def subagent_model(self, agent: str) -> SubagentModel:
        """The task call's subagent (made the first time it is asked for); the router changes
        it and calls ``subagent_changed``."""
        if self.model.subagent is None:
            self.model.subagent = SubagentModel(agent)
            self._update()
        return self.model.subagent

    def subagent_changed(self) -> None:
        view = self.model.view
        if view is not None and view._subagent is not None and view._subagent.is_mounted:
            view._subagent.sync()

    def set_arguments_summary(self, text: str) -> None:
        """One short line about the complete, validated arguments (e.g. a path)."""
        self.model.summary = text
        self._update()

    def set_result(self, output: str, is_error: bool) -> None:
        """The tool's output: shown as one summary line, expandable to the text."""
        self.model.output = output
        self.model.is_error = is_error
        view = self.model.view
        if view is not None and view._result is not None:
            view._result.remove()
            view._result = None
        self._update()

    # -- the transcript's side ---------------------------------------------------------------

    @property
    def settled(self) -> bool:
        # Always: a rebuilt card shares this model, and updates reach whichever card is shown.
        return True

    def snapshot(self) -> ToolCallModel:
        return self.model

    # -- drawing ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._detail
        yield self._hooks

    def on_mount(self) -> None:
        self.model.view = self
        self._timer = self.set_interval(TICK_S, self._header.refresh, pause=True)
        self._show()

    def on_unmount(self) -> None:
        if self.model.view is self:
            self.model.view = None

    def _update(self) -> None:
        view = self.model.view
        if view is not None:
            view._show()

    def _show(self) -> None:
        model = self.model
        state_class = model.state if model.state in STATES else "other"
        if state_class != self._shown_state:
            if self._shown_state:
                self.remove_class(f"-{self._shown_state}")
            self._shown_state = state_class
            self.add_class(f"-{state_class}")
        ticking = model.state in TICKING
        if self._timer is not None and ticking != self._ticking:
            self._ticking = ticking
            if ticking:
                self._timer.resume()
            else:
                self._timer.pause()
        if model.detail != self._shown_detail:
            self._shown_detail = model.detail
            self.set_class(bool(model.detail), "-has-detail")
            self._detail.update(safe_text(model.detail))
        if len(model.hooks) != self._shown_hooks:
            self._shown_hooks = len(model.hooks)
            self.set_class(bool(model.hooks), "-has-hooks")
            self._hooks.update(safe_text("\n".join(model.hooks)))
        if model.subagent is not None and self._subagent is None:
            self._subagent = SubagentView(model.subagent, STATES)
            if self._result is not None:
                self.mount(self._subagent, before=self._result)
            else:
                self.mount(self._subagent)
        if model.output is not None and self._result is None:
            self._result = ToolResultView(model)
            self.mount(self._result)
        self._header.refresh()
