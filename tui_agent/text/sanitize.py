"""The one place untrusted text is made safe to show: model text, tool output, arguments, names.

Plain strings only (no Textual; of Rich only its width table, see ``exact``): the app's
widgets (``ui.sanitize`` adds the styled Rich form), ``run``, ``replay --headless``, the
exports and the session listing all use these.

A terminal acts on control characters: ESC starts sequences that can set the clipboard (OSC 52),
plant links (OSC 8), clear the screen or reset the terminal; bidi controls reorder what is
read; zero-width characters hide text. Every such character is replaced by a readable escape
(``\\x1b``, ``\\x9b``, ``<U+202E>``) one character at a time, so a sequence split across two
streamed deltas is neutralised as well as a whole one, and no escape byte reaches the screen.

Nothing here parses markup: ``[@click=app.quit]`` or ``[link=...]`` stays literal text.

Decisions:
- Code points below U+0100 are written ``\\xNN`` (as Python's ``repr`` does), the rest
  ``<U+XXXX>``.
- Newline and tab are kept in every function; ``markdown_safe`` also drops CR, so CRLF text
  (even split between deltas) reads as lines.
- The escaped set is: C0 and C1 controls, DEL, every format (Cf) character (bidi controls,
  zero-width characters, tag characters, soft hyphen...), line and paragraph separators, lone
  surrogates, and the whole Unicode Default_Ignorable_Code_Point set (DerivedCoreProperties:
  the combining grapheme joiner U+034F, the Hangul fillers, the Khmer inherent vowels, the
  Mongolian and other variation selectors U+180B-U+180F, U+FE00-U+FE0F, U+E0100-U+E01EF, the
  unassigned U+2065, U+FFF0-U+FFF8 and U+E0000-U+E0FFF): a terminal draws none of them, so
  each can hide or smuggle text.
- ``markdown_safe`` keeps ZWNJ and ZWJ where scripts and emoji need them in prose: next to
  visible non-ASCII characters on both sides (an emoji sequence, a Devanagari or Persian word).
  It keeps one presentation selector (U+FE0E text style, U+FE0F emoji style) right after a
  visible non-ASCII character ("❤️"), and a joiner after such a kept selector ("🏳️‍🌈"). Beside
  an ASCII or hidden character, or alone, a joiner or selector only hides something and is
  escaped (so is a second selector in a row, and a keycap's "1️⃣"). At either end of a streamed
  delta, the neighbour it has decides; a selector that starts a delta has none and is escaped.
  The other variation selectors are always escaped. ``visible`` and ``safe_text`` keep none.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Format (Cf) characters as of Unicode 15.1 (a test checks this against unicodedata), plus
# U+2028/U+2029 and every Default_Ignorable_Code_Point (a test checks the whole set).
_HIDDEN_RANGES = (
    "\u00ad",
    "\u034f",
    "\u0600-\u0605",
    "\u061c",
    "\u06dd",
    "\u070f",
    "\u0890-\u0891",
    "\u08e2",
    "\u115f-\u1160",
    "\u17b4-\u17b5",
    "\u180b-\u180f",
    "\u200b-\u200f",
    "\u2028-\u202e",
    "\u2060-\u206f",
    "\u3164",
    "\ufe00-\ufe0f",
    "\ufeff",
    "\uffa0",
    "\ufff0-\ufffb",
    "\U000110bd",
    "\U000110cd",
    "\U00013430-\U0001343f",
    "\U0001bca0-\U0001bca3",
    "\U0001d173-\U0001d17a",
    "\U000e0000-\U000e0fff",
)
_CONTROLS = "\x00-\x08\x0a-\x1f\x7f-\x9f"  # C0 but tab, DEL, C1; "\n" is let through below
_SURROGATES = "\ud800-\udfff"

_HIDDEN = re.compile(f"[{_CONTROLS}{''.join(_HIDDEN_RANGES)}{_SURROGATES}]")
_HIDDEN_IN_LINE = re.compile(f"[\t{_CONTROLS}{''.join(_HIDDEN_RANGES)}{_SURROGATES}]")
_JOINERS = frozenset("\u200c\u200d")
_PRESENTATION = frozenset("\ufe0e\ufe0f")  # text style, emoji style


def escape_char(char: str) -> str:
    """The visible form of one hidden character: ``\\x1b`` below U+0100, else ``<U+202E>``."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"<U+{code:04X}>"


def is_hidden(char: str) -> bool:
    """True for a character ``visible`` replaces (newline and tab are not hidden)."""
    return char != "\n" and _HIDDEN.match(char) is not None


def replace_hidden(text: str, replace: Callable[[str], str]) -> str:
    """``text`` with each hidden character (not newline, not tab) replaced by ``replace(char)``."""
    return _HIDDEN.sub(
        lambda match: match.group() if match.group() == "\n" else replace(match.group()), text
    )


def visible(text: str) -> str:
    """``text`` with every control, format and invisible character replaced by an escape."""
    return replace_hidden(text, escape_char)


def visible_line(text: str) -> str:
    """Like ``visible``, and newline and tab escaped too: for names and one-line labels."""
    return _HIDDEN_IN_LINE.sub(lambda match: escape_char(match.group()), text)


def hidden_matches(text: str, *, one_line: bool = False) -> Iterator[re.Match[str]]:
    """Each hidden character of ``text`` in order (with ``one_line``, newline and tab too)."""
    for match in (_HIDDEN_IN_LINE if one_line else _HIDDEN).finditer(text):
        if one_line or match.group() != "\n":
            yield match


def _shows(char: str) -> bool:
    """A visible non-ASCII character: what a kept joiner or selector may sit beside."""
    return not char.isascii() and not is_hidden(char)


def _selects(text: str, at: int) -> bool:
    """Whether the presentation selector at ``at`` follows a visible non-ASCII character."""
    return at > 0 and _shows(text[at - 1])


def _joins(text: str, at: int) -> bool:
    """Whether the joiner at ``at`` sits between visible non-ASCII characters (see above); a
    selector kept on its left counts as the character it styles."""
    around = [i for i in (at - 1, at + 1) if 0 <= i < len(text)]
    return bool(around) and all(
        _shows(text[i]) or (i < at and text[i] in _PRESENTATION and _selects(text, i))
        for i in around
    )


def _markdown_match(match: re.Match[str]) -> str:
    char, at = match.group(), match.start()
    if (
        char == "\n"
        or (char in _JOINERS and _joins(match.string, at))
        or (char in _PRESENTATION and _selects(match.string, at))
    ):
        return char
    if char == "\r":
        return ""
    return escape_char(char)


def markdown_safe(text: str) -> str:
    """``text`` for the Markdown widget: no control byte left; CR dropped; joiners and
    presentation selectors kept where they join or style a visible character."""
    return _HIDDEN.sub(_markdown_match, text)


# What runs or is trusted, shown exactly ---------------------------------------------------
#
# The layout library (Rich) measures every character to fold a line at the edge; a terminal
# draws it with its own width table. Where the two differ, a line holds more than the layout
# counted and its tail is drawn past the right edge, where nobody sees it: 200 U+302E (0 cells
# for Rich, 2 for glibc and tmux) hid "; touch HIDDEN-RAN" after an innocent command. So the
# surfaces that show what will run or be trusted (the approval prompt, its previews and diffs,
# the trust questions, the cards) escape, besides the hidden characters, every character whose
# width Rich and a terminal may disagree on; and a run of blanks, or of one escaped character,
# longer than a few cells becomes one marker with its length, so padding cannot push a tail out
# of sight. ``exact`` and ``exact_spans`` apply the rule; tests/test_text_width_rule.py checks
# it against Rich's table and the platform's wcwidth over all of Unicode.
#
# A character's width is "sure" when Rich's width for it is the one the Unicode data implies:
# 0 for a nonspacing or enclosing mark (Mn, Me), 2 for East Asian Wide or Fullwidth, 1 for the
# rest. Escaped as unsure: every other character (Rich and the data disagree: spacing marks
# Rich counts as 0, symbols Rich's newer table made wide...); every unassigned or private-use
# code point (a terminal may not know it, a font may draw it at any width); and an East Asian
# Ambiguous character from U+3000 on (drawn wide by some terminals and by glibc for some).
# Ambiguous characters below U+3000 (Greek, Cyrillic, arrows, box drawing, dashes) are left
# alone: terminals draw them narrow unless set to a CJK "ambiguous is wide" mode.
# Beyond the planes scanned (0-3 and the first part of 14) every code point is unassigned or
# private use in every Unicode version to date, so all of them count as unsure.

_SCANNED = ((0, 0x40000), (0xE0000, 0xE1000))
_ZERO_WIDTH_CATEGORIES = frozenset({"Mn", "Me"})
_UNKNOWN_CATEGORIES = frozenset({"Cn", "Co"})
# Blank-looking characters a run of is shown as a marker (tab only where it is kept).
_BLANKS = "\u00a0\u2000-\u200a\u202f\u205f\u3000\u2800 "
MAX_BLANK_CELLS = 8  # a longer run of blanks is a marker...
MAX_INDENT_CELLS = 40  # ...except spaces and tabs at a line's start, up to this many cells
MAX_REPEATED_ESCAPES = 2  # a longer run of one escaped character is a marker
TAB_CELLS = 8


@functools.cache
def _unsure_ranges() -> tuple[tuple[int, int], ...]:
    """Inclusive ranges of the code points escaped as unsure (see above); built once."""
    from rich._unicode_data import load  # the very table Rich measures with

    category, width_class = unicodedata.category, unicodedata.east_asian_width
    end = _SCANNED[0][1]
    rich_width = bytearray(b"\x01") * end
    for first, last, width in load("auto").widths:
        if first < end:
            last = min(last, end - 1)
            rich_width[first : last + 1] = bytes((width,)) * (last - first + 1)
    ranges: list[list[int]] = []

    def add(code: int) -> None:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])

    for low, high in _SCANNED:
        for code in range(low, high):
            if 0xD800 <= code <= 0xDFFF:
                continue  # lone surrogates are hidden characters
            char = chr(code)
            kind = category(char)
            if kind in _UNKNOWN_CATEGORIES:
                add(code)
                continue
            wide = width_class(char)
            if wide == "A" and code >= 0x3000:
                add(code)
                continue
            expected = 0 if kind in _ZERO_WIDTH_CATEGORIES else 2 if wide in "WF" else 1
            if expected != (rich_width[code] if code < end else 1):
                add(code)
    ranges.append([_SCANNED[0][1], _SCANNED[1][0] - 1])
    ranges.append([_SCANNED[1][1], 0x10FFFF])
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and merged[-1][1] >= first - 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return tuple(merged)


@functools.cache
def _astral_unsure() -> tuple[list[int], list[int]]:
    ranges = [(first, last) for first, last in _unsure_ranges() if last > 0xFFFF]
    return [max(first, 0x10000) for first, _ in ranges], [last for _, last in ranges]


def width_unsure(char: str) -> bool:
    """True for a character whose width Rich and a terminal may disagree on (see above)."""
    code = ord(char)
    if code <= 0xFFFF:
        return _exact_pattern(False).pattern_bmp.match(char) is not None
    starts, ends = _astral_unsure()
    index = bisect.bisect_right(starts, code) - 1
    return index >= 0 and code <= ends[index]


@dataclass(frozen=True)
class _ExactPattern:
    pattern: re.Pattern[str]  # a run of blanks, or a run of one hidden-or-unsure candidate
    pattern_bmp: re.Pattern[str]  # one unsure character of the BMP


def _class(ranges: Iterator[tuple[int, int]]) -> str:
    return "".join(
        re.escape(chr(first))
        if first == last
        else f"{re.escape(chr(first))}-{re.escape(chr(last))}"
        for first, last in ranges
    )


@functools.cache
def _exact_pattern(one_line: bool) -> _ExactPattern:
    bmp = _class((first, min(last, 0xFFFF)) for first, last in _unsure_ranges() if first <= 0xFFFF)
    hidden = ("\t" if one_line else "") + _CONTROLS + "".join(_HIDDEN_RANGES) + _SURROGATES
    blanks = _BLANKS if one_line else _BLANKS + "\t"
    # Astral characters are all candidates; ``_astral_unsure`` decides (a long class of astral
    # ranges would be walked for every character of the text).
    candidates = f"{hidden}{bmp}\U00010000-\U0010ffff"
    pattern = re.compile(f"(?P<blank>[{blanks}]{{2,}})|(?P<one>[{candidates}])(?P=one)*")
    return _ExactPattern(pattern, re.compile(f"[{bmp}]"))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def blank_marker(run: str) -> str:
    """The marker for a run of blanks: ``⟨6000 spaces⟩``, ``⟨12 times <U+3000>⟩``..."""
    counts: dict[str, int] = {}
    for char in run:
        counts[char] = counts.get(char, 0) + 1
    parts = [
        _plural(count, "space")
        if char == " "
        else _plural(count, "tab")
        if char == "\t"
        else f"{count} times {escape_char(char)}"
        for char, count in counts.items()
    ]
    if len(parts) == 1:
        return f"⟨{parts[0]}⟩"
    return f"⟨{len(run)} blank characters: {', '.join(parts)}⟩"


def _blank_cells(run: str) -> int:
    return sum(TAB_CELLS if char == "\t" else 2 if char == "\u3000" else 1 for char in run)


def _replacement(match: re.Match[str], one_line: bool) -> str | None:
    """What stands for ``match`` on an exact surface, or None where it is shown as it is."""
    run = match.group()
    if match.group("blank") is not None:
        cells = _blank_cells(run)
        start = match.start()
        leading = not one_line and (start == 0 or match.string[start - 1] == "\n")
        if leading and cells <= MAX_INDENT_CELLS and not run.strip(" \t"):
            return None  # indentation
        return None if cells <= MAX_BLANK_CELLS else blank_marker(run)
    char = run[0]
    if char == "\n" and not one_line:
        return None
    if ord(char) > 0xFFFF and not width_unsure(char):
        return None
    if len(run) > MAX_REPEATED_ESCAPES:
        return f"⟨{len(run)} times {escape_char(char)}⟩"
    return escape_char(char) * len(run)


def prepare_exact() -> None:
    """Build the width rule's tables now (about 0.2 s, once): the app does it in a thread at
    start, so the first card or prompt does not pay for it on the event loop."""
    _exact_pattern(False)
    _exact_pattern(True)
    _astral_unsure()


def exact_spans(text: str, *, one_line: bool = False) -> Iterator[tuple[int, int, str]]:
    """Each part of ``text`` an exact surface replaces: (start, end, what is shown instead).

    Hidden characters and characters of unsure width are escaped (a run of more than
    ``MAX_REPEATED_ESCAPES`` of one as ``⟨200 times <U+302E>⟩``), a run of blanks longer than
    ``MAX_BLANK_CELLS`` is a marker (``⟨6000 spaces⟩``; indentation up to
    ``MAX_INDENT_CELLS`` is kept). With ``one_line``, newline and tab are escaped too.
    """
    for match in _exact_pattern(one_line).pattern.finditer(text):
        shown = _replacement(match, one_line)
        if shown is not None:
            yield match.start(), match.end(), shown


def exact(text: str, *, one_line: bool = False) -> str:
    """``text`` as an exact surface shows it (see ``exact_spans``), as a plain string."""
    pieces: list[str] = []
    position = 0
    for start, end, shown in exact_spans(text, one_line=one_line):
        pieces.append(text[position:start])
        pieces.append(shown)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)
