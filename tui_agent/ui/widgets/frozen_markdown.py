"""A finished stretch of markdown shown as one light widget: rendered once, never re-parsed.

Textual's Markdown widget mounts a widget per block (a 500 KB answer is ~8,000 widgets), and
every widget on screen is laid out again on each streamed change; this is one widget whatever
the length, drawn by rich's Markdown renderer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListItem, MarkdownElement
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style
from textual.selection import Selection
from textual.widgets import Static

# Close to the colours Textual's Markdown uses for code, so a segment changes little when frozen.
CODE_THEME = "github-dark"
LIGHT_CODE_THEME = "vs"


class _BulletItem(ListItem):
    """A list item whose bullet sits where Textual's streaming Markdown draws it: "• " at the
    list's left edge, continuation lines indented two. (Rich draws " • " and three, so a bullet
    list moved one column right the moment its answer was frozen.)"""

    def render_bullet(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - 2), style=self.style
        )
        style = console.get_style("markdown.item.bullet", default="none")
        for index, line in enumerate(lines):
            yield Segment("• " if index == 0 else "  ", style)
            yield from line
            yield Segment("\n")


class _Markdown(RichMarkdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **RichMarkdown.elements,
        "list_item_open": _BulletItem,
    }


class _RenderedOnce:
    """A renderable that keeps the segments of its last render, per width.

    Textual renders a widget's content once to learn its height and again to paint it; markdown
    with highlighted code takes tens of milliseconds per 8 KB, so the second time is a replay.

    Each segment carries its position in the text (the ``offset`` meta Textual's own content
    has), so a mouse selection knows where it starts and ends; ``lines`` is the plain text.
    """

    def __init__(self, renderable: RichMarkdown) -> None:
        self._renderable = renderable
        self._width = -1
        self._segments: list[Segment] = []
        self.lines: list[str] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width != self._width:
            self._segments, self.lines = _with_offsets(console.render(self._renderable, options))
            self._width = options.max_width
        yield from self._segments


def _with_offsets(segments: Iterable[Segment]) -> tuple[list[Segment], list[str]]:
    placed: list[Segment] = []
    lines: list[str] = []
    line: list[str] = []
    x = 0
    for segment in segments:
        text, style, control = segment
        if control:
            placed.append(segment)
            continue
        # rich may put a line break inside a segment's text, not only in a "\n" of its own
        for index, part in enumerate(text.split("\n")):
            if index:
                placed.append(Segment.line())
                lines.append("".join(line).rstrip())
                line, x = [], 0
            if part:
                meta = Style.from_meta({"offset": (x, len(lines))})
                placed.append(Segment(part, style + meta if style else meta))
                line.append(part)
                x += len(part)
    if line:
        lines.append("".join(line).rstrip())
    return placed, lines


class FrozenMarkdown(Static):
    """Markdown ``source`` (already made safe by the caller), rendered once."""

    DEFAULT_CSS = """
    FrozenMarkdown {
        height: auto;
        padding: 0 2;
        margin-bottom: 1;
    }
    FrozenMarkdown:last-child {
        margin-bottom: 0;
    }
    """

    def __init__(self, source: str, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.source = source
        self._rendered: _RenderedOnce | None = None

    def on_mount(self) -> None:
        theme = CODE_THEME if self.app.current_theme.dark else LIGHT_CODE_THEME
        # hyperlinks=False: a link shows its target next to its text and nothing is clickable.
        markdown = _Markdown(self.source, code_theme=theme, hyperlinks=False)
        self._rendered = _RenderedOnce(markdown)
        self.update(self._rendered)

    @property
    def lines(self) -> list[str]:
        """The plain text of each line as last rendered (empty until first rendered)."""
        return list(self._rendered.lines) if self._rendered is not None else []

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown (Textual extracts text only from its own content)."""
        if self._rendered is None or not self._rendered.lines:
            return None
        return selection.extract("\n".join(self._rendered.lines)), "\n"
