"""The one place untrusted text is made safe to show: model text, tool output, arguments, names.

Plain strings only (no Textual, no Rich): the app's widgets (``ui.sanitize`` adds the styled
Rich form), ``run``, ``replay --headless``, the exports and the session listing all use these.

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

import re
from collections.abc import Callable, Iterator

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
