"""Markdown the demo model writes around values it did not choose: paths, commands, output."""

from __future__ import annotations

import re
from collections.abc import Sequence


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def inline_code(text: str) -> str:
    """``text`` as inline code on one line, fenced with more backticks than it contains."""
    text = " ".join(text.splitlines()) or " "
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(lines: Sequence[str]) -> str:
    """``lines`` as a fenced block whose fence none of the lines can close."""
    fence = "```"
    while any(line.lstrip().startswith(fence) for line in lines):
        fence += "`"
    return "\n".join([fence, *lines, fence])


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 line``, ``2 lines``, ``3 entries``, ``1,000 lines``."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"
