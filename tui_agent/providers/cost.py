"""What a turn cost in money, from the usage the provider reported and a price per model.

Each protocol reports its tokens its own way (``billed``): the cached part of the input is billed
at its own price (OpenAI ``*_tokens_details.cached_tokens`` and Gemini
``cachedContentTokenCount``/``total_cached_tokens`` are inside the input count; Anthropic's
``cache_read_input_tokens`` and ``cache_creation_input_tokens`` beside it), and reasoning tokens
as output (inside OpenAI's output count; Gemini's ``thoughtsTokenCount`` and
``total_thought_tokens`` beside it). Prices are US dollars per million tokens, from ``BUILTIN``
unless the config folder's ``prices.toml`` says otherwise (``config/prices.py``). A model with
no price, or a turn with no usage, costs None: unknown, never zero.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cached_input: float | None = None  # None: as input
    cache_write: float | None = None  # Anthropic's cache creation; None: as input


@dataclass(frozen=True, slots=True)
class Billed:
    """One turn's tokens as they are priced."""

    input: int = 0  # not from a cache
    cached_input: int = 0
    cache_write: int = 0
    output: int = 0  # reasoning included


# A small table of well-known models (prices.toml adds to it and overrides it); the name of a
# dated or longer variant ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06") finds the longest
# entry it starts with.
BUILTIN: dict[str, Price] = {
    "gpt-5": Price(1.25, 10.0, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5-nano": Price(0.05, 0.4, 0.005),
    "gpt-4.1": Price(2.0, 8.0, 0.5),
    "gpt-4.1-mini": Price(0.4, 1.6, 0.1),
    "gpt-4.1-nano": Price(0.1, 0.4, 0.025),
    "gpt-4o": Price(2.5, 10.0, 1.25),
    "gpt-4o-mini": Price(0.15, 0.6, 0.075),
    "o3": Price(2.0, 8.0, 0.5),
    "o4-mini": Price(1.1, 4.4, 0.275),
    "claude-opus-4": Price(15.0, 75.0, 1.5, 18.75),
    "claude-opus-4-1": Price(15.0, 75.0, 1.5, 18.75),
    "claude-opus-4-5": Price(5.0, 25.0, 0.5, 6.25),
    "claude-sonnet-4": Price(3.0, 15.0, 0.3, 3.75),
    "claude-sonnet-4-5": Price(3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": Price(0.8, 4.0, 0.08, 1.0),
    "gemini-2.5-pro": Price(1.25, 10.0, 0.125),
    "gemini-2.5-flash": Price(0.3, 2.5, 0.03),
    "gemini-2.5-flash-lite": Price(0.1, 0.4, 0.01),
}


def price_of(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of ``model``: its own entry, else the longest entry its name starts with
    (followed by ``-``), after a ``vendor/`` or ``models/`` prefix; None when none fits."""
    name = model.strip().lower()
    if name in prices:
        return prices[name]
    name = name.rsplit("/", 1)[-1]
    if name in prices:
        return prices[name]
    fits = [key for key in prices if name.startswith(key + "-")]
    return prices[max(fits, key=len)] if fits else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _inner(usage: Mapping[str, Any], outer: str, key: str) -> int:
    details = usage.get(outer)
    return _int(details.get(key)) if isinstance(details, dict) else 0


def billed(protocol: str, usage: Mapping[str, Any] | None) -> Billed | None:
    """The turn's tokens as priced; None when its usage says nothing."""
    if not usage:
        return None
    if protocol == "anthropic":
        found = Billed(
            _int(usage.get("input_tokens")),
            _int(usage.get("cache_read_input_tokens")),
            _int(usage.get("cache_creation_input_tokens")),
            _int(usage.get("output_tokens")),
        )
    elif protocol == "openai-chat":
        cached = _inner(usage, "prompt_tokens_details", "cached_tokens")
        prompt = _int(usage.get("prompt_tokens"))
        found = Billed(max(prompt - cached, 0), cached, 0, _int(usage.get("completion_tokens")))
    elif protocol == "openai-responses":
        cached = _inner(usage, "input_tokens_details", "cached_tokens")
        prompt = _int(usage.get("input_tokens"))
        found = Billed(max(prompt - cached, 0), cached, 0, _int(usage.get("output_tokens")))
    elif protocol == "gemini":
        cached = _int(usage.get("cachedContentTokenCount"))
        prompt = _int(usage.get("promptTokenCount")) + _int(usage.get("toolUsePromptTokenCount"))
        output = _int(usage.get("candidatesTokenCount")) + _int(usage.get("thoughtsTokenCount"))
        found = Billed(max(prompt - cached, 0), cached, 0, output)
    elif protocol == "gemini-interactions":
        cached = _int(usage.get("total_cached_tokens"))
        prompt = _int(usage.get("total_input_tokens")) + _int(usage.get("total_tool_use_tokens"))
        output = _int(usage.get("total_output_tokens")) + _int(usage.get("total_thought_tokens"))
        found = Billed(max(prompt - cached, 0), cached, 0, output)
    else:
        return None
    return found if found != Billed() else None


def cost_of(tokens: Billed, price: Price) -> float:
    """US dollars."""
    cached = price.cached_input if price.cached_input is not None else price.input
    write = price.cache_write if price.cache_write is not None else price.input
    return (
        tokens.input * price.input
        + tokens.cached_input * cached
        + tokens.cache_write * write
        + tokens.output * price.output
    ) / 1_000_000


def turn_cost(
    protocol: str, model: str, usage: Mapping[str, Any] | None, prices: Mapping[str, Price]
) -> float | None:
    """What one turn cost, or None when its price or its usage is unknown."""
    price = price_of(model, prices)
    tokens = billed(protocol, usage)
    return cost_of(tokens, price) if price is not None and tokens is not None else None


def money(amount: float | None) -> str:
    """``$0.0123`` (four decimals under a dollar, two above), or ``$?`` when unknown."""
    if amount is None:
        return "$?"
    return f"${amount:,.2f}" if amount >= 1 else f"${amount:.4f}"
