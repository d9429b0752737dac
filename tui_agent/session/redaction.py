"""Secrets out of everything we write: the configured key values and known token shapes.

A match becomes ``[REDACTED]``, keeping at most a non-secret prefix that names the kind of key
(``sk-ant-[REDACTED]``, ``AIza[REDACTED]``), never enough to rebuild it. Redacting twice is the
same as redacting once. What is opaque in provider events (signatures, encrypted reasoning) is
decided by ``event_redaction``; this module only knows text and JSON text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..stream import jsonparse

MARK = "[REDACTED]"
MIN_SECRET_LENGTH = 8  # shorter configured values would redact ordinary words

# Each shape is a named alternative; the name picks how much prefix survives (_KEEP). No
# alternative starts with a lookbehind, so the leading lookahead below can skip most positions;
# the left boundaries some shapes need are checked in Python (_BOUNDED).
_TOKEN = r"[A-Za-z0-9._~+/=-]{16,}"
_HEADER_NAME = r"(?i:x-goog-api-key|x-api-key|api-key|proxy-authorization|authorization)"
_HEADER_SEPARATOR = r"(?:\\?[\"']\s*,\s*b?\\?[\"']|(?:\\?[\"'])?\s*[:=]\s*(?:b?\\?[\"'])?)"
_AUTH_SCHEME = r"(?i:(?:bearer|basic|token|digest)[ \t]+)?"
_SHAPES = (
    # A PEM private key, up to its END line, or (cut off) for as long as it looks like PEM.
    (
        "pem",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[^\"]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:[A-Za-z0-9+/=:,\s-]|\\[nrt])*)",
    ),
    ("sk", r"sk-[A-Za-z0-9_-]{20,}"),  # OpenAI, Anthropic, OpenRouter...
    ("aiza", r"AIza[0-9A-Za-z_-]{35}"),
    ("github", r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}"),
    ("slack", r"xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}"),
    ("aws", r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])"),
    ("bearer", r"[Bb][Ee][Aa][Rr][Ee][Rr][ \t]+" + _TOKEN),
    # Whatever the value, in every way a header is written: `x-api-key: v`, `"x-api-key": "v"`,
    # `(b'x-api-key', b'v')` (httpcore's debug log), `authorization=Basic v`.
    ("header", _HEADER_NAME + _HEADER_SEPARATOR + _AUTH_SCHEME + _TOKEN),
    ("query", r"[?&](?i:key|api_key|apikey|access_token)=[A-Za-z0-9._~%+/-]{16,}"),
)
_SHAPE_FIRST_CHARS = "-sAgxBbXaApP?&"
# Shapes that must not continue a word: "task-..." is not an "sk-" key. An underscore does not
# count as part of a word: ids the provider chooses are written "call_sk-...".
_BOUNDED = {"sk", "aws", "bearer", "header"}
# Literals (lower case) of which every match contains one: a cheap first test.
_TRIGGERS = (
    "-----begin",
    "sk-",
    "aiza",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xox",
    "xapp-",
    "akia",
    "asia",
    "bearer",
    "api-key",
    "authorization",
    "key=",
    "access_token=",
)
_KEEP = {
    "sk": re.compile(r"sk-(?:ant-(?:api\d\d-|admin\d\d-)?|proj-|svcacct-|admin-|or-v1-)?"),
    "aiza": re.compile(r"AIza"),
    "github": re.compile(r"gh[pousr]_|github_pat_"),
    "slack": re.compile(r"xox[abposr]-|xapp-"),
    "aws": re.compile(r"AKIA|ASIA"),
    "bearer": re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr][ \t]+"),
    "header": re.compile(_HEADER_NAME + _HEADER_SEPARATOR + _AUTH_SCHEME),
    "query": re.compile(r"[?&][^=]*="),
}
_PEM_MARK = "-----BEGIN PRIVATE KEY-----" + MARK + "-----END PRIVATE KEY-----"

Span = tuple[int, int, str]  # start, end, replacement
_ESCAPE_BEFORE = re.compile(r"\\(?:[a-z]|u[0-9A-Fa-f]{4})\Z")


def _in_word(text: str, start: int) -> bool:
    """Whether ``start`` continues a word; an escape (``\\n``, ``\\u000a``) ends one."""
    if start == 0 or not text[start - 1].isalnum():
        return False
    return _ESCAPE_BEFORE.search(text, max(0, start - 6), start) is None


class Redactor:
    """Redacts configured secret values and known key shapes from text."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._build(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        """Redact these values too from now on (an MCP server's ``${VAR}`` values, read when a
        server declared later starts); the ones already known change nothing."""
        new = {s for s in secrets if len(s) >= MIN_SECRET_LENGTH} - set(self.secrets)
        if new:
            self._build((*self.secrets, *new))

    def _build(self, secrets: Iterable[str]) -> None:
        kept = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
        # Configured values come first: at one position the exact key beats a shape.
        alternatives = []
        if kept:
            alternatives.append("(?P<secret>" + "|".join(re.escape(s) for s in kept) + ")")
        alternatives += [f"(?P<{name}>{pattern})" for name, pattern in _SHAPES]
        first = set(_SHAPE_FIRST_CHARS) | {s[0] for s in kept}
        lead = "[" + "".join(re.escape(ch) for ch in sorted(first)) + "]"
        self._pattern = re.compile(f"(?={lead})(?:" + "|".join(alternatives) + ")")
        triggers = _TRIGGERS + tuple(s.lower() for s in kept)
        self._trigger = re.compile("|".join(re.escape(t) for t in triggers))
        # A text cut anywhere: a trigger that straddles the cut lies within this many characters
        # of it (``lower()`` may lengthen a character, so a little margin).
        self.trigger_width = 2 * max(len(t) for t in triggers)
        self.secrets = tuple(kept)  # longest first
        self.secret_count = len(kept)

    def may_match(self, text: str) -> bool:
        """False when ``text`` surely holds nothing to redact: a cheap literal test (every match
        holds one of the trigger literals) that ``spans`` makes first."""
        return self._trigger.search(text.lower()) is not None

    def spans(self, text: str, start: int = 0) -> list[Span]:
        """Every match in ``text`` that starts at ``start`` or later, left to right, with its
        replacement (the text before ``start`` is still seen as the left context)."""
        # Most text holds no trigger at all, and this literal search is several times faster
        # than the full pattern (which needs the exact shapes and the boundary checks).
        if self._trigger.search(text.lower(), max(0, start - 1)) is None:
            return []
        found: list[Span] = []
        at = start
        search = self._pattern.search
        while (match := search(text, at)) is not None:
            kind = match.lastgroup or ""
            start = match.start()
            at = start + 1  # a key may start inside this match and go on past its end
            if kind in _BOUNDED and _in_word(text, start):
                continue
            if found and start < found[-1][1]:
                # Overlapping ("AIza_sk-ant-..."): the first match grows to cover the second.
                first, end, replacement = found[-1]
                found[-1] = (first, max(end, match.end()), replacement)
                continue
            if kind == "pem":
                replacement = _PEM_MARK
            elif kind in _KEEP:
                keep = _KEEP[kind].match(match.group())
                replacement = (keep.group() if keep else "") + MARK
            else:
                replacement = MARK
            found.append((start, match.end(), replacement))
        return found

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced (the same object when there was none)."""
        found = self.spans(text)
        if not found:
            return text
        parts = []
        at = 0
        for start, end, replacement in found:
            parts += [text[at:start], replacement]
            at = end
        parts.append(text[at:])
        return "".join(parts)

    def redact_json(self, text: str) -> str:
        """Redact the string values of JSON text (tool arguments); plain text if not JSON.

        Parsing first finds secrets that JSON escaping would hide from a text search. Text with
        nothing to redact is returned unchanged, byte for byte.
        """
        try:
            value = jsonparse.loads(text)
        except ValueError:
            return self.redact(text)
        if isinstance(value, str) or not isinstance(value, dict | list):
            return self.redact(text)
        if not self._redact_tree(value):
            return text
        return jsonparse.dumps_compact(value)

    def _redact_tree(self, root: dict[str, Any] | list[Any]) -> bool:
        changed = False
        stack: list[dict[str, Any] | list[Any]] = [root]
        while stack:
            node = stack.pop()
            keys: list[Any] = list(node) if isinstance(node, dict) else list(range(len(node)))
            for key in keys:
                value = node[key]
                if isinstance(value, str):
                    new = self.redact(value)
                    if new is not value:
                        node[key] = new
                        changed = True
                elif isinstance(value, dict | list):
                    stack.append(value)
        return changed
