"""Tool output that would not fit what is left of the window is cut, start and end kept, with a
note that tells the model so (and how to get the rest)."""

from __future__ import annotations

from .estimate import estimate_tokens, token_bytes

MIN_OUTPUT_TOKENS = 256  # a result always says at least this much, whatever the window


def fit_note(cut: int, total: int) -> str:
    return (
        f"[output cut to fit the model's context window: {cut} of {total} bytes not shown; "
        "ask for a smaller part (an offset and limit, a narrower search) to see more]"
    )


def fit_output(text: str, budget_tokens: int) -> str:
    """``text`` if it fits ``budget_tokens``; else its start and end with a note between."""
    budget_tokens = max(budget_tokens, MIN_OUTPUT_TOKENS)
    if estimate_tokens(text) <= budget_tokens:
        return text
    data = text.encode("utf-8", "surrogatepass")
    limit = max(0, token_bytes(budget_tokens) - 200)  # room for the note
    tail_bytes = limit // 4
    head = data[: limit - tail_bytes].decode("utf-8", "ignore")
    tail = data[len(data) - tail_bytes :].decode("utf-8", "ignore") if tail_bytes else ""
    note = fit_note(len(data) - limit, len(data))
    return f"{head}\n{note}\n{tail}" if tail else f"{head}\n{note}"
