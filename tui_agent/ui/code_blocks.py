"""Find the fenced code blocks of a markdown answer (for "copy the last code block")."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[^\n]*\n", re.MULTILINE)


def code_blocks(markdown: str) -> list[str]:
    """The contents of every fenced code block, in order; an unclosed fence runs to the end."""
    blocks = []
    at = 0
    while (opening := _FENCE.search(markdown, at)) is not None:
        fence = opening.group(2)
        closing = re.compile(
            rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE
        ).search(markdown, opening.end())
        end = closing.start() if closing else len(markdown)
        blocks.append(markdown[opening.end() : end].removesuffix("\n"))
        at = closing.end() if closing else len(markdown)
    return blocks


def last_code_block(markdown: str) -> str | None:
    blocks = code_blocks(markdown)
    return blocks[-1] if blocks else None
