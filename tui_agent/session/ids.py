"""Session ids: short, sortable by creation time, safe in any file name; and "id or path"."""

from __future__ import annotations

import os
import re
import secrets
import threading
import time

# Crockford's base32 alphabet in lower case: ascending in ASCII, so fixed-width ids sort by time,
# and no two letters differ only by case (case-insensitive file systems).
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
_TIME_DIGITS = 9  # milliseconds since the epoch; 32**9 ms is about 1,100 years
_RANDOM_DIGITS = 5  # 25 random bits against two processes starting in the same millisecond
_ID_RE = re.compile(r"[0-9a-z_-]{1,64}")

_last_ms = 0
_mutex = threading.Lock()


def _encode(value: int, digits: int) -> str:
    out = []
    for _ in range(digits):
        value, digit = divmod(value, 32)
        out.append(_ALPHABET[digit])
    return "".join(reversed(out))


def new_session_id() -> str:
    """A new 14-character id; ids made later (in this process) sort after earlier ones."""
    global _last_ms
    with _mutex:
        # Monotonic within the process even if the wall clock steps back.
        ms = max(time.time_ns() // 1_000_000, _last_ms + 1)
        _last_ms = ms
    return _encode(ms, _TIME_DIGITS) + _encode(secrets.randbits(5 * _RANDOM_DIGITS), _RANDOM_DIGITS)


def is_valid_session_id(text: str) -> bool:
    """True when ``text`` could name a session file in the store (no path characters)."""
    return _ID_RE.fullmatch(text) is not None


def is_session_path(arg: str) -> bool:
    """True when a command's "id or path" argument is a path (has a slash or ends in .jsonl)."""
    return "/" in arg or os.sep in arg or arg.endswith(".jsonl")
