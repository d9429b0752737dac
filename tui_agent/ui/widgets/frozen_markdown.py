"""A finished stretch of markdown shown as one light widget: rendered once, never re-parsed.

Textual's Markdown widget mounts a widget per block (a 500 KB answer is ~8,000 widgets), and
every widget on screen is laid out again on each streamed change; this is one widget whatever
the length, drawn by rich's Markdown renderer.

Rendered only when painted: parsing and highlighting cost ~8 ms per KB, and most of a long
answer is never on screen at a given width (it streams past, or the scrollbar appearing changes
the width). Until then the layout gets an estimate of its height (markdown_height, or the real
height at another width scaled by the estimates); once painted, the real one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListItem, MarkdownElement
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.selection import Selection
from textual.widgets import Static

from .markdown_height import estimate_height

# The code languages whose lexers warm_highlighting builds ahead of the first answer.
WARM_LANGUAGES = ("python", "javascript", "bash", "json")


def warm_highlighting() -> None:
    """Build the Pygments lexers of the common code languages now (the app does it in a thread
    once the session is shown). A lexer class compiles its regular expressions the first time
    one is made: for Python about 40-60 ms, which the first answer with a code block paid on the
    event loop (in the live Markdown widget's highlighting, then again nothing in the frozen
    render, which shares the class)."""
    from rich.syntax import Syntax

    for name in WARM_LANGUAGES:
        _ = Syntax("", name).lexer  # made through Pygments; None for an unknown name


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

    Textual renders a widget's content to paint it, and again after any refresh; markdown with
    highlighted code takes tens of milliseconds per 8 KB, so the second time is a replay. The
    markdown is parsed at the first render, not before.

    Each segment carries its position in the text (the ``offset`` meta Textual's own content
    has), so a mouse selection knows where it starts and ends; ``lines`` is the plain text.
    ``rendered(width, height)`` is called after each real render.
    """

    def __init__(self, source: str, theme: str, rendered: Callable[[int, int], None]) -> None:
        self._source = source
        self._theme = theme
        self._rendered = rendered
        self._markdown: RichMarkdown | None = None
        self.width = -1
        self._segments: list[Segment] = []
        self.lines: list[str] = []

    def markdown(self) -> RichMarkdown:
        if self._markdown is None:
            # hyperlinks=False: a link shows its target next to its text; nothing is clickable.
            self._markdown = _Markdown(self._source, code_theme=self._theme, hyperlinks=False)
        return self._markdown

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width != self.width:
            self._segments, self.lines = _with_offsets(console.render(self.markdown(), options))
            self.width = options.max_width
            self._rendered(self.width, len(self.lines))
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

    # The blank line between two segments is the later one's margin, set by a class
    # (SegmentedMarkdown's -follows), not ":last-child": Textual 8.2.8 applies the styles of
    # every child with a positional rule again at each mount, O(segments) per freeze.
    DEFAULT_CSS = """
    FrozenMarkdown {
        height: auto;
        padding: 0 2;
    }
    """

    def __init__(self, source: str, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.source = source
        self._rendered: _RenderedOnce | None = None
        self._given: tuple[int, int] = (-1, -1)  # the (width, height) the layout last got
        self._estimates: dict[int, int] = {}

    def on_mount(self) -> None:
        theme = CODE_THEME if self.app.current_theme.dark else LIGHT_CODE_THEME
        self._rendered = _RenderedOnce(self.source, theme, self._on_rendered)
        self.update(self._rendered)

    def _estimate(self, width: int) -> int:
        if width not in self._estimates:
            if len(self._estimates) > 8:
                self._estimates.clear()
            self._estimates[width] = estimate_height(self.source, width)
        return self._estimates[width]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The real height if rendered at this width; else an estimate, without rendering."""
        rendered = self._rendered
        if width <= 0 or rendered is None:
            return 0
        if rendered.width == width:
            height = len(rendered.lines)
        elif rendered.width > 0:  # the real height at another width, scaled
            scale = self._estimate(width) / self._estimate(rendered.width)
            height = max(1, round(len(rendered.lines) * scale))
        else:
            height = self._estimate(width)
        self._given = (width, height)
        return height

    def _on_rendered(self, width: int, height: int) -> None:
        if self._given != (width, height):
            # Painted with an estimated height: lay out again with the real one. Not from
            # inside the render: after it.
            self.call_later(self.refresh, layout=True)

    def _render_now(self) -> _RenderedOnce | None:
        """Render at the current width if that was not done yet (text asked for before the
        widget was painted: a test, or a selection)."""
        rendered = self._rendered
        width = self.content_size.width
        if rendered is None or rendered.width == width or width <= 0:
            return rendered
        options = self.app.console_options.update_width(width).update(highlight=False)
        list(rendered.__rich_console__(self.app.console, options))
        return rendered

    @property
    def rendered_width(self) -> int | None:
        """The width of the last real render; None if never rendered (never painted)."""
        rendered = self._rendered
        return rendered.width if rendered is not None and rendered.width > 0 else None

    @property
    def lines(self) -> list[str]:
        """The plain text of each line as rendered at the current width (rendered now if it
        was not painted yet; empty before the widget is laid out)."""
        rendered = self._render_now()
        return list(rendered.lines) if rendered is not None else []

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown (Textual extracts text only from its own content)."""
        rendered = self._render_now()
        if rendered is None or not rendered.lines:
            return None
        return selection.extract("\n".join(rendered.lines)), "\n"
