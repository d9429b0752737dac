"""Redacting text that arrives in pieces (deltas), so no key survives being cut.

A key the model says arrives as many small deltas; redacting each delta alone lets every piece
through. ``StreamRedactor.push(piece)`` returns what may be shown now and holds back only the
tail that could still become a key:

- a tail that is the start of a known key shape (``sk-ant-api0``, ``AIza...`` before its 39th
  character, ``Authorization: Bearer ab``) or of a configured key value;
- a key already found that reaches the end of what arrived: it may still grow, so it is held
  whole (up to ``HOLD_LIMIT`` characters) and shown redacted once it ends.

What is held is bounded: a shape's opening is at most a few hundred characters
(``OPENING_LIMIT``), a configured value's at most its length. A key longer than ``HOLD_LIMIT``
(no real one is) is shown redacted at once, and every character that still continues it is
dropped, so the rest of it is never printed either. ``flush()`` ends the stream (the end of a
turn) and shows the rest, redacted.

Joined, the pieces a stream shows are ``Redactor.redact`` of the whole text, except for those
pathological keys (longer than ``HOLD_LIMIT``, or with more than ``OPENING_LIMIT`` spaces between
a header's name and its value), which are redacted at least as much.
"""

from __future__ import annotations

import re
from typing import Any

from .redaction import Redactor, Span

HOLD_LIMIT = 16384  # the longest key held whole; a PEM private key of 8192 bits is ~6.5 KB
_SPACES = 256  # the longest run of spaces a shape's opening may hold (between name and value)
_TOKEN = r"[A-Za-z0-9._~+/=-]"
_CONTEXT = 6  # how much of what was shown a match's left boundary looks at ("\\u000a")


def _opening(literal: str, ignore_case: bool = False) -> str:
    """Any non-empty prefix of ``literal``."""
    alternatives = "|".join(re.escape(literal[:n]) for n in range(len(literal), 0, -1))
    return f"(?i:{alternatives})" if ignore_case else f"(?:{alternatives})"


_HEADERS = ("x-goog-api-key", "x-api-key", "api-key", "proxy-authorization", "authorization")
_QUERY_NAMES = ("key", "api_key", "apikey", "access_token")
# Every proper prefix of a match of each shape in redaction._SHAPES, from the match's start up
# to where the shape first matches (a longer one is a match, held by the rule above). Holding
# more than that is safe (it is only shown later), so some of these are generous.
_OPENINGS = (
    _opening("-----BEGIN ") + rf"|-----BEGIN [A-Z0-9 -]{{0,{_SPACES}}}",
    _opening("sk-") + r"|sk-[A-Za-z0-9_-]{0,19}",
    _opening("AIza") + r"|AIza[0-9A-Za-z_-]{0,34}",
    r"gh?|gh[pousr](?:_[A-Za-z0-9]{0,35})?",
    _opening("github_pat_") + r"|github_pat_[A-Za-z0-9_]{0,21}",
    r"xo?|xox[abposr]?|xox[abposr]-[A-Za-z0-9-]{0,9}",
    _opening("xapp-") + r"|xapp-[A-Za-z0-9-]{0,9}",
    _opening("AKIA") + "|" + _opening("ASIA") + r"|(?:AKIA|ASIA)[0-9A-Z]{0,16}",
    _opening("bearer", True) + rf"|(?i:bearer)[ \t]{{0,{_SPACES}}}{_TOKEN}{{0,15}}",
    "|".join(_opening(name, True) for name in _HEADERS)
    + "|(?i:"
    + "|".join(re.escape(name) for name in _HEADERS)
    + rf")[\\\"'\s,b:=]{{0,{_SPACES // 4}}}"
    + rf"(?:[A-Za-z]{{1,6}}[ \t]{{1,{_SPACES}}})?{_TOKEN}{{0,15}}",
    r"[?&](?:"
    + "|".join(_opening(name + "=", True) for name in _QUERY_NAMES)
    + "|(?i:"
    + "|".join(_QUERY_NAMES)
    + r")=[A-Za-z0-9._~%+/-]{0,15})?",
)
_OPEN = re.compile("(?:" + "|".join(f"(?:{o})" for o in _OPENINGS) + r")\Z")
OPENING_LIMIT = 2 * _SPACES + 64  # no opening above is longer
_PEM_REST = re.compile(r"(?:[A-Za-z0-9+/=:,\s-]|\\[nrt]?)*")  # what may continue a cut PEM key
_KEY_REST = re.compile(r"[A-Za-z0-9._~+/=%-]*")  # what may continue any other key


class StreamRedactor:
    """One stream (text, reasoning, tool output): push pieces, show what comes back, flush."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._secrets = redactor.secrets
        self._secret_firsts = frozenset(s[0] for s in self._secrets)
        self._longest_secret = max((len(s) for s in self._secrets), default=0)
        self._before = ""  # the last characters shown: the left context of what is held
        self._held = ""
        self._dropping: re.Pattern[str] | None = None  # the rest of an over-long key

    @property
    def held(self) -> str:
        """What is held back now (for tests: it is bounded)."""
        return self._held

    def push(self, piece: str) -> str:
        """The part of the stream so far that can be shown now, redacted."""
        if self._dropping is not None and piece:
            rest = self._dropping.match(piece)
            piece = piece[rest.end() if rest else 0 :]
            if not piece:
                return ""
            self._dropping = None
        text = self._before + self._held + piece
        base = len(self._before)
        spans = self._redactor.spans(text, base)
        hold = len(text)
        too_long = None
        if spans and spans[-1][1] == len(text):
            start, end, replacement = spans[-1]
            if end - start <= HOLD_LIMIT:
                hold = start  # the key may go on: hold it whole
                spans.pop()
            else:
                too_long = replacement  # shown redacted now; what continues it is dropped
        hold = min(hold, self._opening_at(text, base, hold))
        for start, end, _ in spans:
            if start < hold < end:
                hold = start  # a key may start inside this one and grow it: hold it whole
        if too_long is not None and hold == len(text):
            self._dropping = _PEM_REST if too_long.startswith("-----") else _KEY_REST
        shown = _apply(text, base, hold, [s for s in spans if s[1] <= hold])
        self._held = text[hold:]
        if hold > base:
            self._before = text[max(0, hold - _CONTEXT) : hold]
        return shown

    def flush(self) -> str:
        """The end of the stream: the rest, redacted; the redactor starts afresh."""
        text = self._before + self._held
        base = len(self._before)
        shown = _apply(text, base, len(text), self._redactor.spans(text, base))
        self._before = self._held = ""
        self._dropping = None
        return shown

    def _opening_at(self, text: str, base: int, limit: int) -> int:
        """Where the earliest tail of ``text`` that could still become a key starts."""
        at = limit
        found = _OPEN.search(text, max(base, len(text) - OPENING_LIMIT))
        if found is not None and found.start() < at:
            at = found.start()
        if self._secrets:
            for index in range(max(base, len(text) - self._longest_secret + 1), at):
                if text[index] in self._secret_firsts and self._starts_secret(text[index:]):
                    return index
        return at

    def _starts_secret(self, tail: str) -> bool:
        return any(len(s) > len(tail) and s.startswith(tail) for s in self._secrets)


def _apply(text: str, base: int, end: int, spans: list[Span]) -> str:
    parts = []
    at = base
    for start, stop, replacement in spans:
        parts += [text[at:start], replacement]
        at = stop
    parts.append(text[at:end])
    return "".join(parts)


def redact_value(value: Any, redactor: Redactor) -> Any:
    """Every string in a JSON-like value redacted (``arguments`` as JSON text); the same object
    when nothing changed. For whole events and records shown or written at once."""
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, list):
        items = [redact_value(item, redactor) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = {
            redactor.redact(key) if isinstance(key, str) else key: (
                redactor.redact_json(item)
                if key == "arguments" and isinstance(item, str)
                else redact_value(item, redactor)
            )
            for key, item in value.items()
        }
        same = len(pairs) == len(value) and all(
            key in pairs and pairs[key] is value[key] for key in value
        )
        return value if same else pairs
    return value
