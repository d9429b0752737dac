"""Tool output that would not fit what is left of the window is cut, start and end kept, with a
note that tells the model so (and how to get the rest)."""

from __future__ import annotations

import bisect

from .estimate import estimate_tokens, piece_costs

MIN_OUTPUT_TOKENS = 256  # a result always says at least this much, whatever the window
_NOTE_TOKENS = 80  # the note, with room to spare (its numbers vary)


def fit_note(cut: int, total: int, lines: int = 0) -> str:
    shown_lines = f"{lines} lines, " if lines else ""
    return (
        f"[output cut to fit the model's context window: {shown_lines}{cut} of {total} bytes "
        "not shown; ask for a smaller part (an offset and limit, a narrower search) to see more]"
    )


def head_and_tail(text: str, tokens: int, tail_share: float) -> tuple[int, int]:
    """Where to cut ``text`` so its start and end together take about ``tokens`` estimated
    tokens, ``tail_share`` of them the end's: the head ends at the first index, the tail
    starts at the second (equal when nothing is cut)."""
    ends, totals = piece_costs(text)
    if not totals or totals[-1] <= 4 * tokens:
        return len(text), len(text)
    room = 4 * max(0, tokens)  # quarter tokens, as piece_costs counts
    tail_room = int(room * tail_share)
    pieces = bisect.bisect_right(totals, room - tail_room)
    head_end = ends[pieces - 1] if pieces else 0
    # The tail: the pieces after the one where the last ``tail_room`` quarters begin.
    tail_at = bisect.bisect_left(totals, totals[-1] - tail_room)
    tail_start = ends[tail_at] if tail_room and tail_at < len(ends) else len(text)
    return head_end, max(tail_start, head_end)


def fit_output(text: str, budget_tokens: int, floor: int = MIN_OUTPUT_TOKENS) -> str:
    """``text`` if its estimate fits ``budget_tokens`` (at least ``floor``); else its start and
    end, with a note between, within that budget."""
    budget_tokens = max(budget_tokens, floor)
    if estimate_tokens(text) <= budget_tokens:
        return text
    head_end, tail_start = head_and_tail(text, budget_tokens - _NOTE_TOKENS, 0.25)
    # Whole lines where there are lines to keep.
    if (newline := text.rfind("\n", 0, head_end)) > 0:
        head_end = newline
    if (newline := text.find("\n", tail_start, len(text) - 1)) >= 0:
        tail_start = newline + 1
    elif head_end < tail_start < len(text) and "\n" in text[head_end:tail_start]:
        tail_start = len(text)  # less room than the last line: no broken line at the end
    head, tail = text[:head_end], text[tail_start:]
    cut = text[head_end:tail_start]
    note = fit_note(
        len(cut.encode("utf-8", "surrogatepass")),
        len(text.encode("utf-8", "surrogatepass")),
        cut.count("\n"),
    )
    return f"{head}\n{note}\n{tail}" if tail else f"{head}\n{note}"
