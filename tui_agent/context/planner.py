"""Which messages a compaction replaces with a summary and which it keeps verbatim.

The conversation may be cut only before a user message or before an assistant message: a
tool call's results always follow the assistant message that made the call, so no cut ever
separates a call from its result, and the kept part never begins with an orphaned result. The
cut keeps as many recent messages as fit ``keep_tokens``; when even the last turn does not fit,
it keeps the least it can (the newest assistant message with its results, or the newest user
message), and an unanswered user message at the end is always kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..conversation import AssistantMessage, Message, UserMessage
from .estimate import estimate_message


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """Replace ``messages[:cut]`` with a summary; keep ``messages[cut:]`` as they are."""

    cut: int
    kept_tokens: int  # the estimate of what is kept


def cut_points(messages: Sequence[Message]) -> list[int]:
    """Every index the conversation may be cut at, ascending (``len(messages)`` included when
    the last message is a finished answer: then nothing need be kept)."""
    points = [
        i
        for i, message in enumerate(messages)
        if i > 0 and isinstance(message, UserMessage | AssistantMessage)
    ]
    if messages:
        last = messages[-1]
        if isinstance(last, AssistantMessage) and not last.tool_calls:
            points.append(len(messages))
    return points


def plan_compaction(messages: Sequence[Message], keep_tokens: int) -> CompactionPlan | None:
    """Where to cut, or None when there is nothing older than what must be kept."""
    points = cut_points(messages)
    if not points:
        return None
    # The suffix sums, so each point's kept size is known without re-estimating.
    kept_after = [0] * (len(messages) + 1)
    for i in range(len(messages) - 1, -1, -1):
        kept_after[i] = kept_after[i + 1] + estimate_message(messages[i])
    must_keep = len(messages)
    if isinstance(messages[-1], UserMessage):
        must_keep = len(messages) - 1  # the question being asked is never summarized away
    allowed = [p for p in points if p <= must_keep]
    if not allowed:
        return None
    for point in allowed:
        if kept_after[point] <= keep_tokens:
            return CompactionPlan(point, kept_after[point])
    point = allowed[-1]
    return CompactionPlan(point, kept_after[point])
