"""What a tool card says when the person edited a call's arguments (``e`` on the prompt).

The card's summary becomes the edited arguments (what runs), and its detail line says they were
edited and shows what changed: a line diff of the model's arguments and the edited ones, each
as indented JSON with sorted keys, so a changed value is one ``-`` line and one ``+`` line. The
diff is shown from the moment the edit is decided, before the call runs; ``review_diff`` is the
whole diff the person confirms before that (``screens.confirm_edit``). No widgets here.
"""

from __future__ import annotations

import difflib
import json

MAX_DIFF_LINES = 12


def pretty(arguments: str) -> list[str]:
    """``arguments`` as indented JSON lines (as given when it is not JSON)."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        return arguments.splitlines()
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def edit_diff(original: str, edited: str) -> list[str]:
    """The changed lines, ``-`` the model's, ``+`` the edited ones (at most MAX_DIFF_LINES)."""
    lines = [
        line
        for line in difflib.unified_diff(pretty(original), pretty(edited), lineterm="", n=0)
        if not line.startswith(("---", "+++", "@@"))
    ]
    if len(lines) > MAX_DIFF_LINES:
        left = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], f"… {left} more changed line{'s' if left > 1 else ''}"]
    return lines


def review_diff(original: str, edited: str) -> list[str]:
    """The whole unified diff shown before edited arguments run (empty when nothing changed)."""
    return list(
        difflib.unified_diff(
            pretty(original),
            pretty(edited),
            fromfile="the model's arguments",
            tofile="your edit",
            lineterm="",
        )
    )


def edited_detail(original: str, edited: str) -> str:
    """The card's detail for an edited call: that it was edited, then the diff."""
    diff = edit_diff(original, edited)
    head = "edited by you: these arguments run, not the model's"
    return "\n".join([head + (" (changes: - the model's, + yours)" if diff else ""), *diff])
