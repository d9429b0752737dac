"""About how many lines rich's Markdown renderer will give a source at a width, without
rendering it.

A frozen segment that is not on screen is given this height and rendered only when it is
painted (see frozen_markdown): parsing markdown and highlighting code costs ~8 ms per KB, a pass
over the lines here ~0.1 ms. The estimate only places what is off screen (the scrollbar, how far
a page key goes); what is painted is always the real render, and the height is corrected then.

No Textual here, and no rich: one pass over the source lines, modelling rich 13-15's layout
roughly: a blank line between blocks, paragraphs joined and word-wrapped, list items indented
by 2 (frozen_markdown's bullets), code blocks word-wrapped 2 narrower between a padding line
above and below, a table's rows plus its borders. Links render as "text (url)" (hyperlinks
off), about their source length.
"""

from __future__ import annotations

import re

LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|(\d{1,9})[.)])[ \t]+")
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_RULE = re.compile(r"[ \t]{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_MARKUP = re.compile(r"\*+|__|`")


def _wrapped(length: int, width: int) -> int:
    """Lines a word-wrapped text of ``length`` characters takes: a word that does not fit
    moves whole to the next line, leaving on average half a short word unused per line."""
    if length <= width:
        return 1
    return -(-length // max(1, width - 2))


def estimate_height(source: str, width: int) -> int:
    """The number of lines ``source`` takes rendered at ``width`` by rich's Markdown, roughly
    (within a few percent on prose, lists and code)."""
    width = max(1, width)
    lines = 0
    blocks = 0
    paragraph = 0  # characters of the paragraph (or list item) being gathered, -1: none
    indent = 0  # the width taken by the current list item's bullet
    fence: str | None = None
    table = 0

    def close() -> None:
        nonlocal paragraph, lines, table
        if paragraph > 0:
            lines += _wrapped(paragraph, width - indent)
        if table:
            lines += table + 2  # top and bottom borders; the |---| line is the separator
        paragraph = table = 0

    def start_block() -> None:
        nonlocal blocks, lines
        if blocks:
            lines += 1
        blocks += 1

    in_list = False
    for raw in source.splitlines():
        if fence is not None:
            stripped = raw.strip()
            if stripped.startswith(fence) and stripped.strip(fence[0]) == "":
                fence = None
                lines += 1  # the padding line below
            else:
                lines += _wrapped(len(raw.expandtabs(4)) or 1, width - 2 - indent)
            continue
        line = raw.rstrip()
        if not line:
            close()
            in_list = False
            indent = 0
            continue
        opening = _FENCE.match(line)
        if opening is not None:
            close()
            start_block()
            fence = opening.group(1)
            lines += 1  # the padding line above
            continue
        if _RULE.match(line):
            close()
            start_block()
            lines += 1
            continue
        item = LIST_ITEM.match(line)
        if item is not None:
            close()
            if not in_list:
                start_block()
            in_list = True
            number = item.group(1)
            indent = 2 if number is None else len(number) + 2  # "• " or "12. "
            paragraph = len(_MARKUP.sub("", line[item.end() :])) or 1
            continue
        stripped = line.lstrip()
        if stripped.startswith("#"):
            close()
            start_block()
            in_list = False
            indent = 0
            lines += 1
            continue
        if stripped.startswith("|"):
            if not table:
                close()
                start_block()
            table += 1
            continue
        if paragraph or in_list:
            paragraph += 1 + len(_MARKUP.sub("", stripped))
            continue
        close()
        start_block()
        indent = 0
        paragraph = len(_MARKUP.sub("", stripped))
    close()
    if fence is not None:
        lines += 1
    return max(1, lines)
