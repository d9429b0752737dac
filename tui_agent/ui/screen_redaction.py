"""A screenshot or a copy holds no key: text is redacted as it is shown, across styles, wrapped
lines and widget edges, before it leaves (as SVG, or to the clipboard).

The screen, rendered to segments, is read as a grid of characters, and searched:

- the whole screen, row by row (a key split over styled runs is one string here);
- each widget's content region on its own, its rows (borders, padding and side-by-side widgets
  left out) joined twice: by newlines (a PEM key's lines), and with a full row (one that reaches
  the right end of its block of rows) joined to the next without the spaces at their ends (a word
  folded at a wrap width goes on at the start of the next row).

In each text every match of the redactor (configured keys, known shapes), every run of 16 or
more characters of a configured key (its start may be off screen), and every tail of a row that
could still be the start of a key and is 16 or more characters long (a line cut at the edge) is
masked in place, cell for cell, so the layout stays: what the redactor keeps (``sk-ant-``) stays,
the rest reads ``[REDACTED]`` then ``*``. A copied text is searched as it is and without the
Markdown markers (`` ` * _ ~ ``) that may split a key in the source; a key there loses all but
its kept prefix and ``[REDACTED]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rich.cells import get_character_cell_size
from rich.segment import Segment

from ..session.redaction import MARK, Redactor
from ..session.stream_redaction import StreamRedactor

MIN_RUN = 16  # the shortest run of a key that must never be shown
Region = tuple[int, int, int, int]  # x, y, width, height in cells
_Where = tuple[int, int]  # the segment and the character in it


@dataclass(slots=True)
class _Cell:
    char: str
    x: int
    where: _Where


def redact_segments(
    segments: list[Segment], regions: Iterable[Region], redactor: Redactor
) -> list[Segment]:
    """``segments`` (a whole screen, rows ended by newlines) with every key masked."""
    rows = _grid(segments)
    mask: dict[_Where, str] = {}
    _scan(*_screen_text(rows), redactor, mask, "*")
    for region in set(regions):
        cropped = _crop(rows, region)
        _scan(*_joined(cropped, "\n"), redactor, mask, "*")
        _scan(*_unwrapped(cropped), redactor, mask, "*")
    if not mask:
        return segments
    out = []
    for index, segment in enumerate(segments):
        if segment.control or not any((index, at) in mask for at in range(len(segment.text))):
            out.append(segment)
            continue
        text = "".join(mask.get((index, at), ch) for at, ch in enumerate(segment.text))
        out.append(Segment(text, segment.style, segment.control))
    return out


def redact_copy(text: str, redactor: Redactor) -> str:
    """``text`` with every key removed, also one that Markdown markers split in the source."""
    mask: dict[_Where, str] = {}
    chars = list(text)
    wheres: list[_Where | None] = [(0, at) for at in range(len(text))]
    _scan(chars, wheres, [], redactor, mask, "")
    kept = [at for at, char in enumerate(chars) if char not in _MARKERS]
    _scan([chars[at] for at in kept], [wheres[at] for at in kept], [], redactor, mask, "")
    masked = "".join(mask.get((0, at), char) for at, char in enumerate(chars)) if mask else text
    return redactor.redact(masked)


_MARKERS = frozenset("`*_~")
_FOLLOWING = 4096  # how far a key that starts a row is looked for (a long key folds many rows)


def _scan(
    chars: list[str],
    wheres: list[_Where | None],
    edges: list[int],
    redactor: Redactor,
    mask: dict[_Where, str],
    pad: str,
) -> None:
    """Mask in ``mask`` what must not be shown of the text ``chars``; ``edges``: where rows end."""
    text = "".join(chars)
    for start, end, replacement in redactor.spans(text):
        _mask(mask, chars, wheres, start, end, replacement, pad)
    runs = _secret_runs(redactor)
    if runs is not None:
        for found in runs.finditer(text):
            _mask(mask, chars, wheres, found.start(), found.start() + MIN_RUN, "", pad)
    for row_end in edges[:-1]:
        # Rows joined as one: a key that starts a row must not be taken to go on the word that
        # ends the row before it ("tail" + "sk-..."), so such a row is searched on its own too.
        if text[row_end - 1 : row_end].isalnum():
            following = text[row_end : row_end + _FOLLOWING]
            for start, end, replacement in redactor.spans(following):
                _mask(mask, chars, wheres, row_end + start, row_end + end, replacement, pad)
    row_start = 0
    for row_end in edges:
        held = _held_tail(text[row_start:row_end], redactor)
        if held >= MIN_RUN:
            _mask(mask, chars, wheres, row_end - held, row_end, "", pad)
        row_start = row_end


def _grid(segments: list[Segment]) -> list[list[_Cell]]:
    rows: list[list[_Cell]] = [[]]
    x = 0
    for index, segment in enumerate(segments):
        if segment.control:
            continue
        for at, char in enumerate(segment.text):
            if char == "\n":
                rows.append([])
                x = 0
                continue
            rows[-1].append(_Cell(char, x, (index, at)))
            x += get_character_cell_size(char)
    return rows


_Text = tuple[list[str], list[_Where | None], list[int]]


def _screen_text(rows: list[list[_Cell]]) -> _Text:
    return _joined([_strip(row, left=False) for row in rows], "\n")


def _crop(rows: list[list[_Cell]], region: Region) -> list[list[_Cell]]:
    left, top, width, height = region
    right = left + width
    return [
        [cell for cell in rows[y] if left <= cell.x < right]
        for y in range(max(0, top), min(len(rows), top + height))
    ]


def _strip(row: list[_Cell], left: bool = True) -> list[_Cell]:
    """The row without the spaces at its ends (at its right end only, unless ``left``)."""
    end = len(row)
    while end and row[end - 1].char.isspace():
        end -= 1
    start = 0
    while left and start < end and row[start].char.isspace():
        start += 1
    return row[start:end]


def _joined(rows: list[list[_Cell]], separator: str) -> _Text:
    """The rows' text joined by ``separator``, where each character is, and where rows end."""
    chars: list[str] = []
    wheres: list[_Where | None] = []
    edges: list[int] = []
    for row in rows:
        chars += [cell.char for cell in row]
        wheres += [cell.where for cell in row]
        edges.append(len(chars))
        chars += separator
        wheres += [None] * len(separator)
    return chars, wheres, edges


def _unwrapped(rows: list[list[_Cell]]) -> _Text:
    """The rows' text, each row joined to the next with nothing between them where it is full:
    its last character reaches (within one cell) the right end of the longest row of its block
    (the rows between two empty ones), as a row a word was folded at does."""
    rows = [_strip(row) for row in rows]
    ends = [row[-1].x + get_character_cell_size(row[-1].char) if row else 0 for row in rows]
    widest = list(ends)
    start = 0
    for at in range(len(rows) + 1):
        if at == len(rows) or not ends[at]:
            block = max(ends[start:at], default=0)
            widest[start:at] = [block] * (at - start)
            start = at + 1
    chars: list[str] = []
    wheres: list[_Where | None] = []
    edges: list[int] = []
    for row, end, block in zip(rows, ends, widest, strict=True):
        chars += [cell.char for cell in row]
        wheres += [cell.where for cell in row]
        edges.append(len(chars))
        if not end or end < block - 1:
            chars.append("\n")
            wheres.append(None)
    return chars, wheres, edges


def _held_tail(row: str, redactor: Redactor) -> int:
    """How long the tail of ``row`` is that could still become a key, were the row to go on
    (0 when it is a key already found: that is masked as found)."""
    found = redactor.spans(row)
    if found and found[-1][1] == len(row):
        return 0
    stream = StreamRedactor(redactor)
    stream.push(row)
    return len(stream.held)


_RUNS: dict[tuple[str, ...], re.Pattern[str] | None] = {}


def _secret_runs(redactor: Redactor) -> re.Pattern[str] | None:
    """Every MIN_RUN characters of every configured key (overlapping matches), or None."""
    key = redactor.secrets
    if key not in _RUNS:
        windows = {s[at : at + MIN_RUN] for s in key for at in range(len(s) - MIN_RUN + 1)}
        alternatives = "|".join(re.escape(w) for w in sorted(windows))
        _RUNS.clear()  # one redactor at a time in practice: keep only its pattern
        _RUNS[key] = re.compile(f"(?=(?:{alternatives}))") if windows else None
    return _RUNS[key]


def _mask(
    mask: dict[_Where, str],
    chars: list[str],
    wheres: list[_Where | None],
    start: int,
    end: int,
    replacement: str,
    pad: str,
) -> None:
    """Mask characters ``start:end`` of a text, keeping what ``replacement`` keeps of them."""
    keep = 0
    if replacement.endswith(MARK):
        prefix = replacement[: -len(MARK)]
        keep = len(prefix) if "".join(chars[start : start + len(prefix)]) == prefix else 0
    fill = iter(MARK)
    for at in range(start + keep, end):
        where = wheres[at]
        if where is None or chars[at] == "\n":
            continue
        width = get_character_cell_size(chars[at])
        mask.setdefault(where, "".join(next(fill, pad) for _ in range(max(1, width))))
