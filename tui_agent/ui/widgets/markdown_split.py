"""Where a streamed markdown answer may be cut into segments that render on their own.

The live Markdown widget gets slower as its source grows, so the answer is cut into segments of
about ``freeze_at`` characters: the finished ones are rendered once and left alone. A cut is only
made where rendering the two halves apart looks the same as rendering them together: after a
blank line, outside a code fence, before a line that starts flush left (an indented line could be
a list item's continuation or an indented code block).

No Textual here: the splitter is plain bookkeeping, fed each delta once, O(len(delta)).

Decisions:
- A fence is any line whose first non-blank characters are 3+ backticks or tildes (a backtick
  info string holds no backtick), at any indent, so a fence inside a list counts too; it is
  closed by a line of the same character, at least as long, with nothing after it. Erring
  towards "inside a fence" only delays a cut.
- A fence longer than ``fence_limit`` characters (a whole file in one code block) is closed and
  reopened with the same opening line at a line boundary: the display shows two adjacent code
  blocks, but the per-delta cost stays flat. The answer's text is never changed; only the
  rendered segments get the extra fence lines.
- With no blank line for ``hard_limit`` characters (one huge tight list), a cut is made before
  any line that starts flush left, which can split a paragraph or a list in two; never after a
  line with a pipe (a table row) or before a setext underline of ``=``.
- One line with no newline is never cut: a single 500 KB line stays one growing paragraph.
- A burst (one feed of ``burst_at`` characters or more: a fast stream coalesced, or a short
  answer arriving whole) is also cut at its last clean boundary once the segment holds
  ``burst_at`` characters there, so that what stays for the live widget is the unfinished last
  block, not the burst: Textual's Markdown mounts a widget per block, ~40 ms for 3 KB at once
  (8 KB took 300 ms under load), where a frozen segment is one widget rendered only when
  painted. A stream slow enough to come in small feeds is cut at ``freeze_at`` only.
"""

from __future__ import annotations

from dataclasses import dataclass

FREEZE_AT = 8 * 1024
BURST_AT = 2 * 1024
FENCE_LIMIT = 32 * 1024
HARD_LIMIT = 32 * 1024


@dataclass(frozen=True, slots=True)
class Cut:
    """The current segment ends here. ``close`` is appended to its display (an open fence is
    closed); the next segment's display starts with ``reopen`` (the fence opened again)."""

    close: str = ""
    reopen: str = ""


Piece = str | Cut


@dataclass(slots=True)
class _Fence:
    char: str
    length: int
    opening_line: str  # with its newline, used to reopen a fence cut in two
    size: int = 0  # characters inside the fence in the current segment


def _fence_opening(line: str) -> tuple[str, int] | None:
    stripped = line.lstrip(" \t")
    if not stripped or stripped[0] not in "`~":
        return None
    char = stripped[0]
    run = len(stripped) - len(stripped.lstrip(char))
    if run < 3 or (char == "`" and "`" in stripped[run:]):
        return None
    return char, run


def _closes(line: str, fence: _Fence) -> bool:
    stripped = line.strip(" \t\r\n")
    if not stripped or stripped[0] != fence.char:
        return False
    run = len(stripped) - len(stripped.lstrip(fence.char))
    return run >= fence.length and run == len(stripped)


class MarkdownSplitter:
    """Feed deltas, get back pieces: text for the current segment, and a ``Cut`` wherever a new
    segment should begin."""

    def __init__(
        self,
        freeze_at: int = FREEZE_AT,
        *,
        fence_limit: int = FENCE_LIMIT,
        hard_limit: int = HARD_LIMIT,
        burst_at: int | None = BURST_AT,
    ) -> None:
        self.freeze_at = freeze_at
        self.burst_at = burst_at
        self.fence_limit = fence_limit
        self.hard_limit = hard_limit
        self._segment_size = 0  # characters in the current segment
        self._line: list[str] = []  # the unfinished line, as received
        self._line_started = False  # its first character has been seen (and judged)
        self._fence: _Fence | None = None
        self._in_table = False  # the last finished line had a pipe: maybe a table row
        self._cuttable = False  # a cut may be made before the next line's first character

    def feed(self, text: str) -> list[Piece]:
        """Split ``text`` into pieces; consecutive text pieces are never returned."""
        pieces: list[Piece] = []
        start = 0
        position = 0
        end = len(text)
        clean = -1  # the last line start after ``start`` where a clean cut could be made
        clean_size = 0  # the segment's size there
        while position < end:
            if not self._line_started:
                self._line_started = True
                first = text[position]
                cut = self._cut_before(first)
                if cut is not None:
                    if position > start:
                        pieces.append(text[start:position])
                    pieces.append(cut)
                    start = position
                    clean = -1
                elif self._cuttable and self._fence is None and first not in " \t\n":
                    clean, clean_size = position, self._segment_size
            newline = text.find("\n", position)
            if newline < 0:
                self._line.append(text[position:])
                break
            self._line.append(text[position : newline + 1])
            line = "".join(self._line)
            self._segment_size += len(line)
            self._end_line(line)
            self._line = []
            self._line_started = False
            position = newline + 1
        burst = self.burst_at
        if burst is not None and end >= burst and clean > start and clean_size >= burst:
            pieces.append(text[start:clean])
            pieces.append(Cut())
            start = clean
            self._segment_size -= clean_size
        if end > start:
            pieces.append(text[start:])
        return pieces

    def _cut_before(self, first_char: str) -> Cut | None:
        """The cut to make before a line whose first character is this, if any."""
        fence = self._fence
        if fence is not None:
            # Never right before what may be the closing line: that would leave an empty block.
            if fence.size < self.fence_limit or first_char in (fence.char, "\n"):
                return None
            fence.size = 0
            self._segment_size = 0
            line = fence.opening_line
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            return Cut(close=f"{indent}{fence.char * fence.length}\n", reopen=line)
        if first_char in " \t\n":
            return None
        hard = self._segment_size >= self.hard_limit and not self._in_table and first_char != "="
        if hard or (self._cuttable and self._segment_size >= self.freeze_at):
            self._segment_size = 0
            self._cuttable = False
            return Cut()
        return None

    def _end_line(self, line: str) -> None:
        """Judge a finished line (with its newline)."""
        fence = self._fence
        if fence is not None:
            if _closes(line, fence):
                self._fence = None
            else:
                fence.size += len(line)
            self._cuttable = self._in_table = False
            return
        opening = _fence_opening(line)
        if opening is not None:
            self._fence = _Fence(opening[0], opening[1], line)
            self._cuttable = False
            return
        self._cuttable = not line.strip()
        self._in_table = "|" in line
