"""What every app of ours shares: its crash output and its screenshots hold no key.

Textual reports an unhandled exception with a rich traceback that shows the local variables of
every frame, and a frame that builds a request holds the key; here the report is a plain
traceback without locals, redacted (and logged, redacted, too). A screenshot is the screen as
SVG: the screen's text is redacted as a whole before it is drawn (``screen_redaction``: across
styled runs, wrapped lines and widget edges), then each SVG text run once more. What is copied to
the clipboard (the last answer, a code block, a selection) is redacted too.
"""

from __future__ import annotations

import html
import io
import re
import sys

from rich.console import Console
from rich.segment import Segments
from rich.text import Text
from textual.app import App
from textual.errors import NoWidget
from textual.widget import Widget

_SVG_TEXT = re.compile(r"(<text\b[^>]*>)([^<]*)(</text>)")


def redact_svg(svg: str) -> str:
    """``svg`` (as Rich exports it) with the text of each run redacted."""
    from ..logs import redact

    def one(match: re.Match[str]) -> str:
        shown = html.unescape(match.group(2)).replace("\xa0", " ")  # Rich writes " " as &#160;
        redacted = redact(shown)
        if redacted is shown:
            return match.group()
        escaped = html.escape(redacted, quote=False).replace(" ", "&#160;")
        return match.group(1) + escaped + match.group(3)

    return _SVG_TEXT.sub(one, svg)


class SafeApp(App[None]):
    """An App whose crash report and screenshots are redacted."""

    def _fatal_error(self) -> None:
        from ..logs import crash_report

        error = sys.exc_info()[1] or self._exception
        report = crash_report(error) if error is not None else "unknown error\n"
        self.bell()
        self.panic(Text(report, style="red"))

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """As Textual's, but the screen's segments are redacted before they become SVG."""
        from ..logs import redactor
        from .screen_redaction import redact_segments

        assert self._driver is not None, "App must be running"
        width, height = self.size
        console = Console(
            width=width,
            height=height,
            file=io.StringIO(),
            force_terminal=True,
            color_system="truecolor",
            record=True,
            legacy_windows=False,
            safe_box=False,
        )
        # The same render Textual's export_screenshot prints (its own private seam, as there).
        update = self.screen._compositor.render_update(
            full=True, screen_stack=self._background_screens, simplify=simplify
        )
        segments = list(console.render(update)) if update is not None else []
        console.print(Segments(redact_segments(segments, self._regions(), redactor())))
        return redact_svg(console.export_svg(title=title or self.title))

    def _regions(self) -> list[tuple[int, int, int, int]]:
        """The visible content region of every widget on every screen of the stack."""
        regions = []
        for screen in self.screen_stack:
            for widget in screen.walk_children(Widget, with_self=True):
                try:
                    clip = screen.find_widget(widget).clip
                except NoWidget:
                    continue
                region = widget.scrollable_content_region.intersection(clip)
                if region.area:
                    regions.append((region.x, region.y, region.width, region.height))
        return regions

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy (an answer, a code block, a selection) goes out redacted."""
        from ..logs import redactor
        from .screen_redaction import redact_copy

        super().copy_to_clipboard(redact_copy(text, redactor()))
