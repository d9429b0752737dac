"""A tool's result inside its card: one summary line, expandable to the output in a Log.

The Log is only filled the first time it is opened. The display is capped (lines and
characters) with a note saying so; what the model received is not affected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Log, Static

from ..sanitize import safe_text, visible

if TYPE_CHECKING:
    from .tool_card import ToolCallModel

MAX_LINES = 2_000
MAX_CHARS = 200_000


def human_size(size: int) -> str:
    """``size`` bytes for people: "512 B", "2.3 KB", "1.4 MB"."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def line_count(text: str) -> int:
    """Lines in ``text``; a final newline does not start another."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def summary_line(output: str, is_error: bool, expanded: bool) -> Text:
    """The one line shown for a result: its first non-blank line and its size."""
    first = next((line for line in output.splitlines() if line.strip()), "(no output)")
    lines = line_count(output)
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append("▾ " if expanded else "▸ ")
    text.append_text(safe_text(first.strip(), "bold red" if is_error else "", one_line=True))
    plural = "" if lines == 1 else "s"
    text.append(f"  ({lines:,} line{plural}, {human_size(len(output.encode()))})", "dim")
    return text


def display_lines(output: str) -> tuple[list[str], str | None]:
    """The lines to show (escaped) and, when capped, a note saying what was left out."""
    shown = output[:MAX_CHARS]
    lines = visible(shown).splitlines()
    total = line_count(output)
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES]
    if len(lines) < total or len(shown) < len(output):
        return lines, (
            f"display truncated: {len(lines):,} of {total:,} lines shown "
            f"({human_size(len(output.encode()))} in all; the model got its own capped copy)"
        )
    return lines, None


class ResultSummary(Static, can_focus=True):
    """The summary line; Enter or a click opens and closes the output."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_output", "Show output")]

    def action_toggle_output(self) -> None:
        parent = self.parent
        if isinstance(parent, ToolResultView):
            parent.toggle()

    def on_click(self) -> None:
        self.action_toggle_output()


class ToolResultView(Vertical):
    """The result of one call, shown from the card's model."""

    DEFAULT_CSS = """
    ToolResultView {
        height: auto;
    }
    ToolResultView > ResultSummary {
        height: 1;
        color: $text-muted;
        &:focus {
            background: $block-cursor-blurred-background;
        }
    }
    ToolResultView > Log {
        height: auto;
        max-height: 20;
        overflow: auto auto;
        display: none;
    }
    ToolResultView > .note {
        color: $text-warning;
        display: none;
    }
    ToolResultView.-expanded > Log,
    ToolResultView.-expanded.-truncated > .note {
        display: block;
    }
    """

    def __init__(self, model: ToolCallModel) -> None:
        super().__init__()
        self.model = model
        self._filled = False

    @property
    def expanded(self) -> bool:
        return self.model.expanded

    def compose(self) -> ComposeResult:
        yield ResultSummary(self._summary())
        yield Log(highlight=False)
        yield Static(classes="note")

    def on_mount(self) -> None:
        if self.model.expanded:
            self._fill()
        self.set_class(self.model.expanded, "-expanded")

    def _summary(self) -> Text:
        return summary_line(self.model.output or "", self.model.is_error, self.model.expanded)

    def toggle(self) -> None:
        """Open or close the output."""
        self.model.expanded = not self.model.expanded
        if self.model.expanded:
            self._fill()
        self.set_class(self.model.expanded, "-expanded")
        self.query_one(ResultSummary).update(self._summary())

    def _fill(self) -> None:
        if self._filled:
            return
        self._filled = True
        lines, note = display_lines(self.model.output or "")
        self.query_one(Log).write_lines(lines, scroll_end=False)
        if note is not None:
            self.query_one(".note", Static).update(Text(note))
            self.add_class("-truncated")
