"""Recognising a provider's "the request does not fit the context window" error, in any of the
shapes the five protocols and the usual local servers give it, and the limit it names."""

from __future__ import annotations

import re

from .window import sane_window

# Each pattern is one server's wording (lower case), as seen in its error message.
_PATTERNS = (
    "context_length_exceeded",  # OpenAI's error code, when the message carries it
    "maximum context length",  # OpenAI Chat, vLLM, OpenRouter, Groq
    "exceeds the context window",  # OpenAI Responses
    "context window of this model",
    "prompt is too long",  # Anthropic
    "exceed context limit",  # Anthropic: input length and max_tokens exceed context limit
    "input token count",  # Gemini: The input token count (N) exceeds the maximum number ...
    "exceeds the maximum number of tokens",
    "exceeds the available context size",  # llama.cpp server
    "exceed_context_size",  # llama.cpp's error type
    "context size has been exceeded",  # older llama.cpp
    "maximum model length",  # vLLM: the decoder prompt is longer than the maximum model length
    "longer than the model's context length",
    "greater than the context length",  # LM Studio
    "context length exceeded",
)

_LIMITS = (
    re.compile(r"maximum context length is (\d[\d,]*)"),
    re.compile(r"tokens? > (\d[\d,]*) maximum"),
    re.compile(r"maximum number of tokens allowed \((\d[\d,]*)\)"),
    re.compile(r"maximum model length (?:of|is) (\d[\d,]*)"),
    re.compile(r"context (?:length|size|window) (?:of|is) (\d[\d,]*)"),
    re.compile(
        r"context size \((\d[\d,]*) tokens?\)"
    ),  # llama.cpp: available context size (N tokens)
    re.compile(r"n_ctx\D{0,4}(\d+)"),
)


def is_overflow(error: str | None) -> bool:
    """True when a provider's error says the request is larger than the model's window."""
    if not error:
        return False
    text = error.lower()
    return any(pattern in text for pattern in _PATTERNS)


def overflow_limit(error: str | None) -> int | None:
    """The window an overflow error names ("maximum context length is 4096 tokens"), if any."""
    if not is_overflow(error):
        return None
    text = (error or "").lower()
    for pattern in _LIMITS:
        found = pattern.search(text)
        if found:
            digits = found.group(1).replace(",", "")
            # More digits than any window has are no window (and int() of 5,000 raises).
            value: object = int(digits) if len(digits) <= 12 else digits
            return sane_window(value, "the server's overflow error")
    return None


_PROMPT_SIZES = (
    re.compile(r"request \((\d[\d,]*) tokens?\) exceeds"),  # llama.cpp
    re.compile(r"(\d[\d,]*) in the messages"),  # OpenAI Chat: (N in the messages, ...)
    re.compile(r"resulted in (\d[\d,]*) tokens"),  # OpenAI: your messages resulted in N tokens
    re.compile(r"prompt is too long: (\d[\d,]*) tokens"),  # Anthropic
    re.compile(r"input token count \((\d[\d,]*)\)"),  # Gemini
)


def overflow_prompt_tokens(error: str | None) -> int | None:
    """The size of the refused request, when the overflow error names it ("request (2367
    tokens) exceeds the available context size"): what the server counted, to calibrate the
    estimate by."""
    if not is_overflow(error):
        return None
    text = (error or "").lower()
    for pattern in _PROMPT_SIZES:
        found = pattern.search(text)
        if found:
            digits = found.group(1).replace(",", "")
            return int(digits) if 0 < len(digits) <= 9 and int(digits) > 0 else None
    return None


def overflow_words(error: str | None) -> str:
    """What the person is told: the conversation no longer fits, in words."""
    limit = overflow_limit(error)
    size = f" ({limit:,} tokens)" if limit else ""
    return (
        f"the conversation no longer fits in the model's context window{size}: "
        "the provider refused the request"
    )
