"""One table that sorts every provider's stop reason into normal or one truncation reason."""

from __future__ import annotations

from .turn import TruncationReason

_NORMAL = frozenset(
    {
        "end_turn",
        "stop",
        "tool_calls",
        "tool_use",
        "stop_sequence",
        "refusal",
        "pause_turn",
        "completed",
        "requires_action",
        "function_call",
    }
)
_LENGTH = frozenset({"length", "max_tokens", "max_output_tokens", "model_context_window_exceeded"})
_FILTERED = frozenset(
    {
        "content_filter",
        "safety",
        "recitation",
        "prohibited_content",
        "blocklist",
        "spii",
        "image_safety",
        "image_prohibited_content",
        "image_recitation",
    }
)
_ERROR = frozenset({"failed", "error"})


def classify(stop_reason: str | None) -> TruncationReason | None:
    """None when the reason is a normal end, else the truncation reason it stands for."""
    if stop_reason is None:
        return "incomplete"
    value = stop_reason.lower()
    if value in _NORMAL:
        return None
    if value in _LENGTH:
        return "length"
    if value in _FILTERED:
        return "filtered"
    if value in _ERROR:
        return "error"
    return "incomplete"
