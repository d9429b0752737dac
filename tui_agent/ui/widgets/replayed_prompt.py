"""The approval prompt of a replayed call, as it looked once answered: read-only.

It shows the call ("call k of N", tool, risk, its full arguments, drawn like the live prompt's
preview but from the recorded arguments alone: no file is read) and, in place of the keys, the
decision that was made. It is disabled from the start: it never takes focus or keys, resolves
nothing and runs nothing.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static

from ..call_preview import CallPreview, recorded_preview
from ..sanitize import safe_text
from .folded_text import FoldedText


def parse_arguments(arguments: str) -> dict[str, Any] | None:
    """The recorded argument string as a JSON object, or None if it is not one."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        return None
    return value if isinstance(value, dict) else None


class ReplayedPrompt(Vertical, can_focus=False):
    """One recorded call and its recorded decision (``decision``, e.g. "denied: too risky")."""

    DEFAULT_CSS = """
    ReplayedPrompt {
        height: auto;
        padding: 0 1;
        border: round $warning 60%;
        background: $surface;
    }
    ReplayedPrompt:disabled { border: round $warning 60%; }
    ReplayedPrompt #title { height: 1; }
    ReplayedPrompt #title Label { margin-right: 2; }
    ReplayedPrompt #tool { text-style: bold; }
    ReplayedPrompt #risk { text-style: bold; color: $error; }
    ReplayedPrompt #heading { color: $text-muted; }
    ReplayedPrompt #arguments { height: auto; max-height: 40vh; background: $boost; }
    ReplayedPrompt #notes { color: $warning; }
    ReplayedPrompt #decision { text-style: bold; }
    ReplayedPrompt .-empty { display: none; }
    """

    def __init__(
        self,
        *,
        call_id: str,
        tool_name: str,
        risk: str,
        arguments: str,
        position: int,
        total: int,
        decision: str,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.call_id = call_id
        self.tool_name = tool_name
        self.risk = risk
        self.arguments = arguments
        self.position = position
        self.total = total
        self.decision = decision
        self.shown = self.preview()
        self.disabled = True  # never focused, never given a key

    def preview(self) -> CallPreview:
        parsed = parse_arguments(self.arguments)
        if parsed is None:
            note = "the recorded arguments are not a JSON object; shown as recorded"
            return CallPreview("json", Text("arguments"), safe_text(self.arguments), (note,))
        return recorded_preview(self.tool_name, parsed)

    def compose(self) -> ComposeResult:
        preview = self.shown
        with Horizontal(id="title"):
            yield Label(Text(f"call {self.position} of {self.total}"), id="position")
            yield Label(safe_text(self.tool_name, one_line=True), id="tool")
            yield Label(safe_text(self.risk, one_line=True), id="risk")
        yield Static(preview.heading, id="heading")
        yield FoldedText(preview.body, id="arguments")
        notes = "\n".join(preview.notes)
        yield Static(safe_text(notes), id="notes", classes="" if notes else "-empty")
        yield Static(safe_text(self.decision, one_line=True), id="decision")

    def shown_text(self) -> str:
        """Everything the prompt shows, as plain text (for tests and the headless eye)."""
        preview = self.shown
        parts = [f"call {self.position} of {self.total}", self.tool_name, self.risk]
        parts += [preview.heading.plain, preview.body.plain, *preview.notes, self.decision]
        return "\n".join(parts)
