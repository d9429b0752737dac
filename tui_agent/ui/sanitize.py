"""The one place untrusted text is made safe to show: model text, tool output, arguments, names.

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
  surrogates, and the invisible Hangul fillers and supplementary variation selectors (both used
  to smuggle text). ``markdown_safe`` keeps ZWNJ and ZWJ where scripts and emoji need them in
  prose: next to visible non-ASCII characters on both sides (an emoji sequence, a Devanagari
  or Persian word). Beside an ASCII or hidden character, or alone, a joiner only hides
  something and is escaped; at either end of a streamed delta, the neighbour it has decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.style import Style
from rich.text import Text

# How an escape looks inside a Text: reversed so it stands out on any theme.
ESCAPE_STYLE = Style(bold=True, reverse=True, color="yellow")

# Format (Cf) characters as of Unicode 15.1 (a test checks this against unicodedata), plus
# U+2028/U+2029, the Hangul fillers and the supplementary variation selectors.
_HIDDEN_RANGES = (
    "\u00ad",
    "\u0600-\u0605",
    "\u061c",
    "\u06dd",
    "\u070f",
    "\u0890-\u0891",
    "\u08e2",
    "\u115f-\u1160",
    "\u180e",
    "\u200b-\u200f",
    "\u2028-\u202e",
    "\u2060-\u2064",
    "\u2066-\u206f",
    "\u3164",
    "\ufeff",
    "\uffa0",
    "\ufff9-\ufffb",
    "\U000110bd",
    "\U000110cd",
    "\U00013430-\U0001343f",
    "\U0001bca0-\U0001bca3",
    "\U0001d173-\U0001d17a",
    "\U000e0001",
    "\U000e0020-\U000e007f",
    "\U000e0100-\U000e01ef",
)
_CONTROLS = "\x00-\x08\x0a-\x1f\x7f-\x9f"  # C0 but tab, DEL, C1; "\n" is let through below
_SURROGATES = "\ud800-\udfff"

_HIDDEN = re.compile(f"[{_CONTROLS}{''.join(_HIDDEN_RANGES)}{_SURROGATES}]")
_HIDDEN_IN_LINE = re.compile(f"[\t{_CONTROLS}{''.join(_HIDDEN_RANGES)}{_SURROGATES}]")
_JOINERS = frozenset("\u200c\u200d")


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


def safe_text(text: str, style: str | Style = "", *, one_line: bool = False) -> Text:
    """A rich Text of ``text`` with escapes styled apart; markup is never parsed.

    With ``one_line``, newline and tab are escaped too.
    """
    result = Text(style=style)
    position = 0
    for match in (_HIDDEN_IN_LINE if one_line else _HIDDEN).finditer(text):
        char = match.group()
        if char == "\n" and not one_line:
            continue
        result.append(text[position : match.start()])
        result.append(escape_char(char), ESCAPE_STYLE)
        position = match.end()
    result.append(text[position:])
    return result


def _joins(text: str, at: int) -> bool:
    """Whether the joiner at ``at`` sits between visible non-ASCII characters (see above)."""
    around = text[max(0, at - 1) : at] + text[at + 1 : at + 2]
    return bool(around) and not any(char.isascii() or is_hidden(char) for char in around)


def _markdown_match(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\n" or (char in _JOINERS and _joins(match.string, match.start())):
        return char
    if char == "\r":
        return ""
    return escape_char(char)


def markdown_safe(text: str) -> str:
    """``text`` for the Markdown widget: no control byte left; CR dropped; joiners kept where
    they join."""
    return _HIDDEN.sub(_markdown_match, text)
