"""Untrusted text as a styled Rich ``Text`` for widgets, and the plain-string escapes re-exported.

The rules (what is hidden, how it is escaped, what Markdown keeps) live in ``text.sanitize``, the
one sanitizer, below every surface; this module adds only how an escape looks on the screen.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ..text.sanitize import (
    escape_char,
    exact,
    exact_spans,
    hidden_matches,
    is_hidden,
    markdown_safe,
    replace_hidden,
    visible,
    visible_line,
)

__all__ = [
    "ESCAPE_STYLE",
    "escape_char",
    "exact",
    "exact_text",
    "is_hidden",
    "markdown_safe",
    "replace_hidden",
    "safe_text",
    "visible",
    "visible_line",
]

# How an escape looks inside a Text: reversed so it stands out on any theme.
ESCAPE_STYLE = Style(bold=True, reverse=True, color="yellow")


def safe_text(text: str, style: str | Style = "", *, one_line: bool = False) -> Text:
    """A rich Text of ``text`` with escapes styled apart; markup is never parsed.

    With ``one_line``, newline and tab are escaped too.
    """
    result = Text(style=style)
    position = 0
    for match in hidden_matches(text, one_line=one_line):
        result.append(text[position : match.start()])
        result.append(escape_char(match.group()), ESCAPE_STYLE)
        position = match.end()
    result.append(text[position:])
    return result


def exact_text(text: str, style: str | Style = "", *, one_line: bool = False) -> Text:
    """Like ``safe_text``, for what will run or be trusted: also characters whose width Rich and
    a terminal may disagree on, and long runs of blanks, shown as styled escapes and markers
    (``text.sanitize.exact_spans``)."""
    result = Text(style=style)
    position = 0
    for start, end, shown in exact_spans(text, one_line=one_line):
        result.append(text[position:start])
        result.append(shown, ESCAPE_STYLE)
        position = end
    result.append(text[position:])
    return result
