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
        if by == "hook":  # the reason names the hook
            return f"approved by {reason}" if reason else "approved by a hook"
        return "approved by you" + (f" ({reason})" if reason else "")
    if kind == "edit":
        return "edited and approved by you"
    if kind == "deny":
        return f"denied{suffix}" if reason else "denied by you"
    if kind == "cancel":
        return f"cancelled{suffix}" if reason else "cancelled by you"
    return f"refused{suffix}"


# User decisions the loop recorded without showing a prompt (see agent/calls.py).
NOT_ASKED = ("approved with the rest of this turn", "the turn was cancelled")


def was_asked(event: CallDecided) -> bool:
    """True when the recorded decision was made by the user at an approval prompt."""
    return event.by == "user" and event.decision != "refused" and event.reason not in NOT_ASKED


def prompt_line(event: CallDecided) -> str:
    """What a replayed prompt shows in place of its keys, e.g. "decided: approved by you"."""
    reason = event.reason
    if event.decision == "approve":
        return "decided: approved by you" + (f" ({reason})" if reason else "")
    if event.decision == "edit":
        return "edited and approved"
    if event.decision == "deny":
        return f"denied: {reason}" if reason else "denied by you"
    if event.decision == "cancel":
        return f"cancelled: {reason}" if reason else "cancelled"
    return decision_line(event)
