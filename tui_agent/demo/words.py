"""Reading a user's message the way the demo model does: words, quoted text and paths."""

from __future__ import annotations

import re
from dataclasses import dataclass

# "double", `backticks`, “curly” and 'single' quotes (a single quote only as a whole word, so
# that "what's" opens nothing).
_QUOTED = re.compile(r'"([^"]+)"|`([^`]+)`|“([^”]+)”|(?<!\w)\'([^\']+)\'(?!\w)')
_LEADING = "\"'`(“[{<"
_TRAILING = ".,!?;:)\"'`”]}>"
_PATH_SHAPE = re.compile(r"[\w.\-/~+@]+")


@dataclass(frozen=True, slots=True)
class Word:
    """One whitespace-separated word: ``raw`` as typed (edge punctuation removed), ``key`` lower
    case; ``start`` and ``end`` locate the whole word in the message."""

    raw: str
    key: str
    start: int
    end: int


def quoted(text: str) -> list[str]:
    """The quoted pieces of ``text``, in order."""
    return [next(group for group in match.groups() if group) for match in _QUOTED.finditer(text)]


def unquoted(text: str) -> str:
    """``text`` with its quoted pieces blanked out, so words inside quotes trigger nothing."""
    return _QUOTED.sub(lambda match: " " * len(match.group(0)), text)


def words(text: str) -> list[Word]:
    """The words of ``text``; ``notes.txt.`` loses its full stop, ``.env`` and ``src/`` keep
    their dot and slash."""
    out = []
    for match in re.finditer(r"\S+", text):
        raw = match.group(0).lstrip(_LEADING).rstrip(_TRAILING)
        if raw:
            out.append(Word(raw, raw.lower(), match.start(), match.end()))
    return out


def is_path_like(word: str) -> bool:
    """A file or folder name as people type one: ``notes.txt``, ``src/``, ``.env``, ``a/b``."""
    if word in (".", ".."):
        return True
    if not _PATH_SHAPE.fullmatch(word):
        return False
    return "/" in word or bool(re.search(r"\w\.\w", word) or re.fullmatch(r"\.\w[\w.-]*", word))


def strip_quotes(text: str) -> str:
    """``text`` without one pair of surrounding quotes or backticks, and trimmed."""
    text = text.strip()
    for left, right in ('""', "''", "``", "“”"):
        if len(text) >= 2 and text[0] == left and text[-1] == right:
            return text[1:-1]
    return text
