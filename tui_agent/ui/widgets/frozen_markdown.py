"""A finished stretch of markdown shown as one light widget: rendered once, never re-parsed.

Textual's Markdown widget mounts a widget per block (a 500 KB answer is ~8,000 widgets), and
every widget on screen is laid out again on each streamed change; this is one widget whatever
the length, drawn by rich's Markdown renderer.

Rendered only where painted: parsing and highlighting cost ~8 ms per KB, and most of a long
answer is never on screen at a given width (it streams past, or the scrollbar appearing changes
the width). The source is cut into pieces of about ``PIECE_AT`` characters where the splitter
would cut a stream (markdown_split: rendered apart, they look as rendered together, a blank
line between), and each piece is parsed and rendered only when one of its lines is painted, so
the first screen of a burst renders the few KB at its end, not whole 8 KB segments. Until then
the layout gets an estimate of a piece's height (markdown_height, or its real height at another
width scaled by the estimates); once painted, the real one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListItem, MarkdownElement
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Offset, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widgets import Static

from .markdown_height import LIST_ITEM as _LIST_ITEM
from .markdown_height import estimate_height
from .markdown_split import Cut, MarkdownSplitter

# The size of the pieces a segment is rendered by (see the module's docstring).
PIECE_AT = 1024
# A line's position in the ``offset`` meta, for a selection: piece * _KEY + line in the piece,
# so that it does not depend on the heights of the pieces above, estimated or real.
_KEY = 1 << 20

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


def pieces(source: str, piece_at: int = PIECE_AT) -> list[str]:
    """``source`` cut where rendering the parts apart looks like rendering them together
    (clean cuts only: never in a fence, never a forced cut), whitespace-only parts left out."""
    unlimited = max(len(source), 1) * 2
    splitter = MarkdownSplitter(
        piece_at, fence_limit=unlimited, hard_limit=unlimited, burst_at=None
    )
    parts = [""]
    for piece in splitter.feed(source):
        if isinstance(piece, Cut):
            parts.append("")
        elif parts[-1] or not _LIST_ITEM.match(piece) or len(parts) == 1:
            parts[-1] += piece
        else:  # a list item after a blank line may go on the list above: not cut there
            parts.pop()
            parts[-1] += piece
    return [part for part in parts if part.strip()]


class _RenderedOnce:
    """A renderable that keeps the segments of its last render, per width.

    Textual renders a widget's content to paint it, and again after any refresh; markdown with
    highlighted code takes tens of milliseconds per 8 KB, so the second time is a replay. The
    markdown is parsed at the first render, not before.

    Each segment carries its position in the text (the ``offset`` meta Textual's own content
    has), so a mouse selection knows where it starts and ends; ``lines`` is the plain text.
    ``rendered(width, height)`` is called after each real render.
    """

    def __init__(
        self, source: str, theme: str, rendered: Callable[[int, int], None], key: int = 0
    ) -> None:
        self._source = source
        self._key = key  # the ``offset`` meta's line numbers start here
        self._theme = theme
        self._rendered = rendered
        self._markdown: RichMarkdown | None = None
        self.width = -1
        self._segments: list[Segment] = []
        self.lines: list[str] = []
        self.lead = 0  # empty lines at the top (rich starts a list with one)

    def markdown(self) -> RichMarkdown:
        if self._markdown is None:
            # hyperlinks=False: a link shows its target next to its text; nothing is clickable.
            self._markdown = _Markdown(self._source, code_theme=self._theme, hyperlinks=False)
        return self._markdown

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width != self.width:
            rendered = console.render(self.markdown(), options)
            self._segments, self.lines = _with_offsets(rendered, self._key)
            self.lead = _empty_lines_on_top(self._segments)
            self.width = options.max_width
            self._rendered(self.width, len(self.lines))
        yield from self._segments


def _empty_lines_on_top(segments: list[Segment]) -> int:
    count = 0
    for text, _style, control in segments:
        if control:
            continue
        if text != "\n":
            break
        count += 1
    return count


def _with_offsets(segments: Iterable[Segment], key: int = 0) -> tuple[list[Segment], list[str]]:
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
                meta = Style.from_meta({"offset": (x, key + len(lines))})
                placed.append(Segment(part, style + meta if style else meta))
                line.append(part)
                x += len(part)
    if line:
        lines.append("".join(line).rstrip())
    return placed, lines


class _Piece:
    """One piece of a segment: its source, its render (when painted), its strips per style."""

    __slots__ = ("estimates", "first", "render", "source", "strips")

    def __init__(self, source: str, first: bool) -> None:
        self.source = source
        self.first = first
        self.render: _RenderedOnce | None = None
        self.estimates: dict[int, int] = {}
        self.strips: tuple[int, Style, list[Strip]] | None = None  # width, base style, strips

    def estimate(self, width: int) -> int:
        if width not in self.estimates:
            if len(self.estimates) > 8:
                self.estimates.clear()
            self.estimates[width] = estimate_height(self.source, width)
        return self.estimates[width]

    def height(self, width: int) -> int:
        """The real height at ``width`` if rendered there; else an estimate, without rendering."""
        render = self.render
        if render is None or render.width <= 0:
            return self.estimate(width)
        real = len(self.lines(render))
        if render.width == width:
            return real
        scale = self.estimate(width) / self.estimate(render.width)  # real elsewhere, scaled
        return max(1, round(real * scale))

    def skipped(self, render: _RenderedOnce) -> int:
        """The lines a render of this piece has that the whole segment's would not: rich
        starts a list with an empty line, which after a block above is the one between them,
        already there between two pieces."""
        return 0 if self.first else render.lead

    def lines(self, render: _RenderedOnce) -> list[str]:
        return render.lines[self.skipped(render) :]


class FrozenMarkdown(Static):
    """Markdown ``source`` (already made safe by the caller), rendered once, piece by piece."""

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
        self._theme: str | None = None  # set once mounted
        self._pieces: list[_Piece] | None = None  # cut at the first layout
        # The layout last given: its width, and where each piece starts and how tall it is.
        self._layout: tuple[int, list[int], list[int]] = (-1, [], [])
        self._relayout = False  # a piece was painted at another height than laid out

    def on_mount(self) -> None:
        self._theme = CODE_THEME if self.app.current_theme.dark else LIGHT_CODE_THEME

    def _all_pieces(self) -> list[_Piece]:
        if self._pieces is None:
            parts = pieces(self.source)
            self._pieces = [_Piece(part, index == 0) for index, part in enumerate(parts)]
        return self._pieces

    def _lay_out(self, width: int) -> tuple[int, list[int], list[int]]:
        starts: list[int] = []
        heights: list[int] = []
        y = 0
        for piece in self._all_pieces():
            height = piece.height(width)
            starts.append(y)
            heights.append(height)
            y += height + 1  # a blank line between pieces, as between markdown blocks
        self._layout = (width, starts, heights)
        return self._layout

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Real heights where rendered at this width; else estimates, without rendering."""
        if width <= 0 or self._theme is None:
            return 0
        _, starts, heights = self._lay_out(width)
        return starts[-1] + heights[-1] if starts else 0

    def _rendered(self, index: int, width: int) -> _RenderedOnce:
        """Piece ``index`` rendered at ``width`` (done now if it was not)."""
        piece = self._all_pieces()[index]
        render = piece.render
        if render is None:
            assert self._theme is not None
            render = piece.render = _RenderedOnce(
                piece.source, self._theme, lambda _w, _h: None, index * _KEY
            )
        if render.width != width:
            options = self.app.console_options.update(highlight=False, width=width)
            list(render.__rich_console__(self.app.console, options.update_width(width)))
        return render

    def _strips(self, index: int, width: int) -> list[Strip]:
        """The painted lines of piece ``index``, as Textual's Static would make them."""
        piece = self._all_pieces()[index]
        style = self.visual_style.rich_style
        if piece.strips is not None and piece.strips[:2] == (width, style):
            return piece.strips[2]
        render = self._rendered(index, width)
        options = self.app.console_options.update(highlight=False, width=width)
        segments = self.app.console.render(
            self.post_render(render, style), options.update_width(width)
        )
        lines = Segment.split_and_crop_lines(segments, width, include_new_lines=False, pad=False)
        strips = [Strip(line) for line in lines][piece.skipped(render) :]
        piece.strips = (width, style, strips)
        return strips

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the layout last given: the piece it falls in is rendered now if it
        was not, and laid out again after this frame if its real height is not the one the
        layout had."""
        width = self.size.width
        blank = Strip.blank(width, self.visual_style.rich_style)
        if width <= 0 or self._theme is None:
            return blank
        laid_out, starts, heights = self._layout
        if laid_out != width:
            laid_out, starts, heights = self._lay_out(width)
        index = bisect_right(starts, y) - 1
        if index < 0 or y >= starts[index] + heights[index]:
            return Strip([])  # between two pieces: a blank line, as rich draws one
        strips = self._strips(index, width)
        if len(strips) != heights[index] and not self._relayout:
            # Painted with an estimated height: lay out again with the real one, after.
            self._relayout = True
            self.call_later(self._lay_out_again)
        line = y - starts[index]
        return strips[line] if line < len(strips) else blank

    def _lay_out_again(self) -> None:
        self._relayout = False
        self.refresh(layout=True)

    def _render_now(self) -> list[_RenderedOnce]:
        """Every piece rendered at the current width (text asked for: a test, a selection)."""
        width = self.content_size.width
        if width <= 0 or self._theme is None:
            return []
        return [self._rendered(index, width) for index in range(len(self._all_pieces()))]

    @property
    def rendered_width(self) -> int | None:
        """The width of the last real render of any piece; None if never painted."""
        widths = [p.render.width for p in self._pieces or () if p.render and p.render.width > 0]
        return widths[-1] if widths else None

    @property
    def pieces_rendered(self) -> tuple[int, int]:
        """How many of its pieces were rendered (at any width), and how many it has."""
        every = self._all_pieces()
        return sum(1 for piece in every if piece.render and piece.render.width > 0), len(every)

    @property
    def painted_at_real_height(self) -> bool:
        """Every piece rendered at the width last laid out has its real height there."""
        width, _, heights = self._layout
        return all(
            piece.render.width != width or heights[index] == len(piece.lines(piece.render))
            for index, piece in enumerate(self._pieces or ())
            if piece.render is not None
        )

    @property
    def lines(self) -> list[str]:
        """The plain text of each line as rendered at the current width (rendered now if it
        was not painted yet; empty before the widget is laid out)."""
        lines: list[str] = []
        for index, render in enumerate(self._render_now()):
            if index:
                lines.append("")
            lines.extend(self._all_pieces()[index].lines(render))
        return lines

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown (Textual extracts text only from its own content)."""
        renders = self._render_now()
        if not renders:
            return None
        starts: list[int] = []  # where line 0 of each piece's render is, in ``lines``
        y = 0
        for piece, render in zip(self._all_pieces(), renders, strict=True):
            skipped = piece.skipped(render)
            starts.append(y - skipped)
            y += len(render.lines) - skipped + 1

        def placed(offset: Offset | None) -> Offset | None:
            if offset is None:
                return None
            index, line = divmod(offset.y, _KEY)
            index = min(index, len(starts) - 1)
            return Offset(offset.x, starts[index] + line)

        text = "\n".join(self.lines)
        if not text:
            return None
        return Selection(placed(selection.start), placed(selection.end)).extract(text), "\n"
