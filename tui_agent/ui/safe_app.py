"""What every app of ours shares: its crash output and its screenshots hold no key.

Textual reports an unhandled exception with a rich traceback that shows the local variables of
every frame, and a frame that builds a request holds the key; here the report is a plain
traceback without locals, redacted (and logged, redacted, too). A screenshot is the screen as
SVG; the text of each of its runs is redacted before it is written.
"""

from __future__ import annotations

import html
import re
import sys

from rich.text import Text
from textual.app import App

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
        return redact_svg(super().export_screenshot(title=title, simplify=simplify))
