"""Earlier messages of every session of a workspace, for the history search (Alt+R).

Each session file of the workspace is read line by line; only user records are decoded (the
type is sniffed first, so a turn's raw events are never parsed). Newest first, each text once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..session.codec import LineError, clean_line, decode_line, sniff_type
from ..session.records import UserRecord
from ..session.summary import SessionSummary, same_workspace

MAX_ENTRIES = 5000


@dataclass(frozen=True, slots=True)
class PastMessage:
    text: str
    session_id: str
    ts: float


def _user_texts(path: Path) -> list[tuple[float, str]]:
    found: list[tuple[float, str]] = []
    try:
        with path.open("rb") as file:
            for raw in file:
                line = clean_line(raw.rstrip(b"\n"))
                if not line or sniff_type(line) != "user":
                    continue
                try:
                    record, _ = decode_line(line)
                except LineError:
                    continue
                if isinstance(record, UserRecord) and record.text.strip():
                    found.append((record.ts, record.text))
    except OSError:
        return []
    return found


def workspace_messages(sessions: Iterable[SessionSummary], workspace: str) -> list[PastMessage]:
    """The user messages of the sessions started in ``workspace``, newest first, each once."""
    entries: list[PastMessage] = []
    for summary in sessions:
        if same_workspace(summary.workspace, workspace):
            entries += [PastMessage(t, summary.id, ts) for ts, t in _user_texts(summary.path)]
    entries.sort(key=lambda e: e.ts, reverse=True)
    seen: set[str] = set()
    unique: list[PastMessage] = []
    for entry in entries:
        if entry.text not in seen:
            seen.add(entry.text)
            unique.append(entry)
    return unique[:MAX_ENTRIES]


def search_messages(entries: list[PastMessage], query: str, limit: int = 100) -> list[PastMessage]:
    """Messages holding ``query`` (case-insensitive) first, then those holding its characters
    in order; newest first within each."""
    query = query.strip().lower()
    if not query:
        return entries[:limit]
    exact = [e for e in entries if query in e.text.lower()]
    if len(exact) >= limit:
        return exact[:limit]
    chars = [c for c in query if not c.isspace()]
    # Each character at its first place after the one before: no backtracking on long texts.
    pattern = re.compile(
        re.escape(chars[0]) + "".join(f"[^{re.escape(c)}]*+{re.escape(c)}" for c in chars[1:])
    )
    have = {id(e) for e in exact}
    fuzzy = [e for e in entries if id(e) not in have and pattern.search(e.text.lower())]
    return (exact + fuzzy)[:limit]
