"""A session's title: a rename, else the header's title, else its first user message."""

from __future__ import annotations

import unicodedata

TITLE_LENGTH = 60
UNTITLED = "(untitled)"


def one_line(text: str, limit: int = TITLE_LENGTH) -> str:
    """``text`` on one line: control and format characters dropped, blanks collapsed, cut short."""
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
    )
    line = " ".join(kept.split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def session_title(rename: str | None, header_title: str | None, first_user: str | None) -> str:
    """The title to show for a session."""
    for candidate in (rename, header_title, first_user):
        if candidate is not None:
            line = one_line(candidate)
            if line:
                return line
    return UNTITLED
