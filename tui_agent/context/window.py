"""The size of a model's context window: from the profile, else asked of the server (see
``discovery``), else this small table of well-known models, else unknown."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

WindowSource = Literal["profile", "server", "table", "error"]

# A window a server reports is believed only inside this range (tokens): below it no request
# fits (a window of 1 compacted before every step), above it a number is no window at all
# (10^400 overflowed every float it met).
MIN_WINDOW = 256
MAX_WINDOW = 100_000_000

log = logging.getLogger(__name__)

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
    """How many tokens the model takes (None: unknown) and where that came from: ``source``
    the kind, ``where`` (when known) what answered, e.g. "llama.cpp's GET /props (n_ctx)"."""

    size: int | None = None
    source: WindowSource | None = None
    where: str | None = None

    def described(self) -> str:
        """``2,048 tokens, from the server (llama.cpp's GET /props (n_ctx))``, for /context."""
        if not self.size:
            return "unknown (no context_window set, the server did not say, no table entry)"
        kind = {
            "profile": "set in the configuration (context_window)",
            "server": "from the server",
            "table": "from the built-in table of known models (the server did not say)",
            "error": "named by the server's overflow error",
        }.get(self.source or "", "")
        where = f" ({self.where})" if self.where else ""
        return f"{self.size:,} tokens, {kind}{where}"


def sane_window(value: object, origin: str) -> int | None:
    """``value`` as a window in tokens; None when absent, or (with a log line saying so) when it
    is not a whole number from ``MIN_WINDOW`` to ``MAX_WINDOW``. ``origin`` names where it came
    from, for that line."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and MIN_WINDOW <= value <= MAX_WINDOW:
        return value
    log.warning(
        "ignored the context window %s gave: %s (a window is a whole number of tokens from "
        "%d to %d)",
        origin,
        shown_number(value),
        MIN_WINDOW,
        MAX_WINDOW,
    )
    return None


def shown_number(value: object) -> str:
    """A short form of a value a server sent as a number, for a log line (never all of a
    4,000-digit number)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


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
