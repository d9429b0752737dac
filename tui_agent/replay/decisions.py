"""One short line for a recorded decision, as a replay shows it under the call's card."""

from __future__ import annotations

from ..agent.events import CallDecided


def decision_line(event: CallDecided) -> str:
    """e.g. "approved by you", "denied: too risky", "auto-approved by rule: tool read_file"."""
    reason = event.reason
    suffix = f": {reason}" if reason else ""
    kind, by = event.decision, event.by
    if kind == "approve":
        if by == "rule":
            return f"auto-approved by rule{suffix}"
        if by == "policy":
            return f"auto-approved{suffix}"
        return "approved by you" + (f" ({reason})" if reason else "")
    if kind == "edit":
        return "edited and approved by you"
    if kind == "deny":
        return f"denied{suffix}" if reason else "denied by you"
    if kind == "cancel":
        return f"cancelled{suffix}" if reason else "cancelled by you"
    return f"refused{suffix}"
