"""Search over saved sessions: their titles, then (loaded lazily, cached) their messages' text.

``SessionTextIndex.text(path)`` reads the user and assistant text of one session file once and
keeps it while the file is unchanged (same size and modification time), so typing a query over
hundreds of sessions reads each file at most once. It is safe to call from a worker thread.
``matches(query, title, text_of)`` is the rule: every blank-separated word of the query, case
folded, must appear in the title or in the text; the text is only asked for when the title
alone does not match.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import orjson

from ..session.codec import clean_line, sniff_type

_TEXT_TYPES = frozenset({"user", "assistant"})


def words(query: str) -> list[str]:
    """The case-folded words of a query (none for a blank one)."""
    return query.casefold().split()


def matches(query: str, title: str, text_of: Callable[[], str]) -> bool:
    """True when every word of ``query`` is in ``title`` or in ``text_of()`` (asked lazily)."""
    wanted = words(query)
    folded = title.casefold()
    missing = [word for word in wanted if word not in folded]
    if not missing:
        return True
    text = text_of()
    return all(word in text for word in missing)


def read_text(path: Path) -> str:
    """The user and assistant text of a session file, case folded; empty if unreadable."""
    parts: list[str] = []
    try:
        with path.open("rb") as file:
            for raw in file:
                line = clean_line(raw.rstrip(b"\n"))
                if sniff_type(line) not in _TEXT_TYPES:
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                text = record.get("text") if isinstance(record, dict) else None
                if isinstance(text, str):
                    parts.append(text)
    except OSError:
        return ""
    return "\n".join(parts).casefold()


class SessionTextIndex:
    """The message text of session files, read on first use and cached per file version."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[int, int, str]] = {}
        self._lock = threading.Lock()
        self.reads = 0  # how many files were read (the cache's misses)

    def text(self, path: Path) -> str:
        try:
            info = path.stat()
        except OSError:
            return ""
        key = (info.st_mtime_ns, info.st_size)
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None and cached[:2] == key:
            return cached[2]
        text = read_text(path)
        with self._lock:
            self._cache[path] = (*key, text)
            self.reads += 1
        return text
