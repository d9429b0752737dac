"""A turn's usage, merged by field from the pieces a provider sends, and the tokens it counts.

Providers split usage differently: Anthropic sends the input tokens in ``message_start`` and the
output tokens in ``message_delta``; Gemini repeats ``usageMetadata`` on every chunk; Chat
Completions sends one final usage chunk and Responses one in ``response.completed``. Merging
every piece by field, the later value winning and nested objects merged the same way, gives the
whole usage for each of them. A null never erases a number that came before it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# Keys holding the whole count, where a protocol sends one.
_TOTALS = ("total_tokens", "totalTokenCount")
# Otherwise the sum of these (Anthropic: cached input is counted apart from input_tokens).
_PARTS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "prompt_tokens",
    "completion_tokens",
)


def merge_usage(kept: Mapping[str, Any] | None, piece: Mapping[str, Any]) -> dict[str, Any]:
    """``kept`` updated by ``piece``, field by field (a new dict; neither is changed)."""
    out = dict(kept) if kept else {}
    for key, value in piece.items():
        if value is None and out.get(key) is not None:
            continue
        old = out.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            out[key] = merge_usage(old, value)
        else:
            out[key] = value
    return out


def _count(value: Any) -> int:
    # bool is an int to Python, and a hostile server may send one; neither counts.
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def tokens_used(usage: Mapping[str, Any] | None) -> int:
    """The tokens one turn's usage accounts for (0 when it says nothing usable)."""
    if not usage:
        return 0
    for key in _TOTALS:
        if _count(usage.get(key)):
            return _count(usage.get(key))
    return sum(_count(usage.get(key)) for key in _PARTS)


def tokens_in(usages: Iterable[Mapping[str, Any] | None]) -> int:
    """The tokens of several turns (a resumed session's complete turns)."""
    return sum(tokens_used(usage) for usage in usages)
