"""A scrollable view of a long rich Text: folded at the width, rendered only where visible.

A Static re-wraps its whole text on every layout; a 1 MB argument froze the app for seconds.
This view splits the text into lines once, folds each line at exactly the width, and renders
only the rows on screen. Folding by cells (not word wrap) keeps every character, spaces at a
break included, so what is shown is exactly what runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import get_character_cell_size
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

TAB_SIZE = 8


class FoldedText(ScrollView, can_focus=False):
    """Shows ``text`` folded to the width; scrolls vertically, never clips horizontally.

    Posts ``Below`` whenever the count of rows under the visible ones changes.
    """

    class Below(Message):
        """``count`` rows of the text are below the visible ones."""

        def __init__(self, view: FoldedText, count: int) -> None:
            super().__init__()
            self.view = view
            self.count = count

        @property
        def control(self) -> FoldedText:
            return self.view

    DEFAULT_CSS = """
    FoldedText {
        height: auto;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;
        /* Textual adds this to an auto height when the gutter is stable; nothing scrolls
           sideways here, so it is zero. */
        scrollbar-size-horizontal: 0;
    }
    """

    def __init__(self, text: Text | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[Text] = []
        self._rows: list[tuple[int, int, int]] = []  # line index, first and end character
        self._width = 0
        self._below = 0
        self.update(text or Text())

    @property
    def row_count(self) -> int:
        """Rows the text takes at the current width."""
        return len(self._rows)

    @property
    def rows_below(self) -> int:
        """Rows of the text under the visible ones (0 once it is scrolled to its end)."""
        height = self.scrollable_content_region.height
        if height <= 0 or not self._rows:
            return 0
        return max(0, len(self._rows) - round(self.scroll_y) - height)

    def _report_below(self) -> None:
        below = self.rows_below
        if below != self._below:
            self._below = below
            self.post_message(self.Below(self, below))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._report_below()

    def update(self, text: Text) -> None:
        """Show ``text`` instead (its markup, if any, was never parsed: it is a Text)."""
        lines = list(text.split("\n", allow_blank=True)) or [Text()]
        for line in lines:
            line.expand_tabs(TAB_SIZE)  # a tab never reaches the terminal
        self._lines = lines
        self._width = 0
        self._fold()

    def on_resize(self, event: events.Resize) -> None:
        self._fold()
        self._report_below()

    def _fold(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._width:
            return
        self._width = width
        self._rows = [
            (index, start, end)
            for index, line in enumerate(self._lines)
            for start, end in fold_offsets(line.plain, width)
        ]
        self.virtual_size = Size(width, len(self._rows))
        self.refresh(layout=True)
        self._report_below()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = self.scroll_offset.y + y
        if row >= len(self._rows):
            return Strip.blank(width, base)
        index, start, end = self._rows[row]
        piece = self._lines[index][start:end]
        console = self.app.console
        style = base
        if piece.style:  # Text.render drops the base style of a text without spans
            style += console.get_style(piece.style)
        segments = Segment.apply_style(piece.render(console), style)
        return Strip(segments, piece.cell_len).extend_cell_length(width, base)


def fold_offsets(plain: str, width: int) -> Iterator[tuple[int, int]]:
    """Character ranges of ``plain`` that each fill at most ``width`` cells (one for "")."""
    if not plain:
        yield (0, 0)
        return
    if plain.isascii():  # one cell per character: controls were escaped before this
        for start in range(0, len(plain), width):
            yield (start, min(start + width, len(plain)))
        return
    start = cells = 0
    for index, char in enumerate(plain):
        size = get_character_cell_size(char)
        if cells + size > width and index > start:
            yield (start, index)
            start, cells = index, 0
        cells += size
    yield (start, len(plain))
