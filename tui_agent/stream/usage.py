"""A turn's usage, merged by field from the pieces a provider sends.

Providers split usage differently: Anthropic sends the input tokens in ``message_start`` and the
output tokens in ``message_delta``; Gemini repeats ``usageMetadata`` on every chunk; Chat
Completions sends one final usage chunk and Responses one in ``response.completed``. Merging
every piece by field, the later value winning and nested objects merged the same way, gives the
whole usage for each of them. A null never erases a number that came before it. How many tokens
a usage counts is each protocol's own reading (``providers.spec.UsageKeys``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
