"""The size of a model's context window: from the profile, else asked of the server (see
``discovery``), else this small table of well-known models, else unknown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

WindowSource = Literal["profile", "server", "table", "error"]

# Longest prefix wins; model names are compared in lower case. Input windows as published.
_KNOWN: tuple[tuple[str, int], ...] = (
    ("tui-agent-demo", 16_000),  # the offline demo: small enough to see compaction happen
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("claude-", 200_000),
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-1.5", 1_048_576),
    ("gemini-2", 1_048_576),
    ("gemini-3", 1_048_576),
    ("qwen3", 32_768),
    ("qwen2.5-coder", 32_768),
    ("llama3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama3.3", 131_072),
    ("mistral-large", 131_072),
    ("deepseek-chat", 65_536),
    ("deepseek-reasoner", 65_536),
)


@dataclass(frozen=True, slots=True)
class ContextWindow:
    """How many tokens the model takes (None: unknown) and where that came from."""

    size: int | None = None
    source: WindowSource | None = None


def builtin_window(model: str) -> int | None:
    """The window of a well-known model by name (``openai/gpt-4o`` counts as ``gpt-4o``)."""
    name = model.lower().rsplit("/", 1)[-1]
    best: tuple[int, int] | None = None
    for prefix, size in _KNOWN:
        if name.startswith(prefix) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), size)
    return best[1] if best else None


def format_tokens(count: int) -> str:
    """``950``, ``12.3k``, ``16k``, ``1.0M``: short enough for a status line."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        value = count / 1000
        return f"{value:.0f}k" if value >= 100 or value == int(value) else f"{value:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def context_line(used: int, window: int | None) -> str:
    """``ctx 12.3k/16k 77%``, or ``ctx 12.3k`` when the window is unknown."""
    if not window:
        return f"ctx {format_tokens(used)}"
    percent = round(100 * used / window)
    return f"ctx {format_tokens(used)}/{format_tokens(window)} {percent}%"


def over_threshold(used: int, window: int | None, compact_at: float) -> bool:
    """True when ``used`` is past the compaction threshold (never when either is unknown/off)."""
    return bool(window) and compact_at > 0 and used > compact_at * (window or 0)
