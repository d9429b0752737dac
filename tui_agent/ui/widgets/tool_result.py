"""A tool's result inside its card: one summary line, expandable to the output (wrapped).

The summary line says how to open it (Enter or a click) and, once open, how to close it.

The output is only filled in the first time it is opened. The display is capped (lines and
characters) with a note saying so; what the model received is not affected.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from ..sanitize import safe_text, visible

MAX_LINES = 2_000
MAX_CHARS = 200_000


class ResultModel(Protocol):
    """What the result view reads and toggles of its card's model (``tool_card.ToolCallModel``)."""

    output: str | None
    is_error: bool
    expanded: bool


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


OPEN_HINT = "Enter or click opens"
CLOSE_HINT = "Enter or click closes"


def summary_line(output: str, is_error: bool, expanded: bool, width: int | None = None) -> Text:
    """The one line shown for a result: its first non-blank line, how many more lines follow,
    its size, and how to open (or close) it. Given the ``width`` it is drawn in, the first line
    is cut so the rest fits."""
    first = next((line for line in output.splitlines() if line.strip()), "(no output)")
    lines = line_count(output)
    tail = Text(end="")
    size = human_size(len(output.encode()))
    # "+2 more lines": the line shown is the first of several (a listing's summary is not
    # about its first file, as "README.md (3 lines)" read).
    more = lines - 1
    if more > 0:
        counted = f"+{more:,} more line{'' if more == 1 else 's'}, {size}"
    else:
        counted = f"{lines} line{'' if lines == 1 else 's'}, {size}"
    tail.append(f"  ({counted})", "dim")
    tail.append(f"  · {CLOSE_HINT if expanded else OPEN_HINT}", "dim italic")
    head = Text(no_wrap=True, overflow="ellipsis", end="")
    head.append("▾ " if expanded else "▸ ")
    head.append_text(safe_text(first.strip(), "bold red" if is_error else "", one_line=True))
    if width is not None:
        head.truncate(max(12, width - tail.cell_len), overflow="ellipsis")
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append_text(head)
    text.append_text(tail)
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


class ResultSummary(Widget, can_focus=True):
    """The summary line; Enter or a click opens and closes the output (and it says so)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "toggle_output", "Show output")]

    def render(self) -> Text:
        parent = self.parent
        if not isinstance(parent, ToolResultView):
            return Text()
        model = parent.model
        width = self.content_size.width or None
        return summary_line(model.output or "", model.is_error, model.expanded, width)

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
    ToolResultView > RichLog {
        height: auto;
        max-height: 20;
        overflow: auto auto;
        display: none;
    }
    ToolResultView > .note {
        color: $text-warning;
        display: none;
    }
    ToolResultView.-expanded > RichLog,
    ToolResultView.-expanded.-truncated > .note {
        display: block;
    }
    """

    def __init__(self, model: ResultModel) -> None:
        super().__init__()
        self.model = model
        self._filled = False
        self._reveal = False  # opened by the person: show its top once it has its size

    @property
    def expanded(self) -> bool:
        return self.model.expanded

    def compose(self) -> ComposeResult:
        yield ResultSummary()
        # Long lines wrap (an advice past the edge was cut before); text only, no markup.
        # Here, not at the top: Textual's RichLog imports rich.pretty and attrs (~10 ms), which
        # the first screen, with no result on it, does not need.
        from textual.widgets import RichLog

        yield RichLog(wrap=True, highlight=False, markup=False, auto_scroll=False, min_width=20)
        yield Static(classes="note")

    def on_resize(self) -> None:
        if self._reveal and self.model.expanded:
            self._reveal = False
            self.scroll_visible(animate=False, immediate=True)

    def on_mount(self) -> None:
        if self.model.expanded:
            self._fill()
        self.set_class(self.model.expanded, "-expanded")

    def toggle(self) -> None:
        """Open or close the output."""
        self.model.expanded = not self.model.expanded
        if self.model.expanded:
            self._fill()
            # Opened at the end of a transcript that follows its end, a long output pushed its
            # own start, and the line just clicked, up out of view: once it has its new size,
            # its top is shown instead (as much of it as fits), which stops the following.
            self._reveal = True
        self.set_class(self.model.expanded, "-expanded")
        self.query_one(ResultSummary).refresh()

    def _fill(self) -> None:
        if self._filled:
            return
        self._filled = True
        lines, note = display_lines(self.model.output or "")
        from textual.widgets import RichLog

        self.query_one(RichLog).write(Text("\n".join(lines)), scroll_end=False)
        if note is not None:
            self.query_one(".note", Static).update(Text(note))
            self.add_class("-truncated")
