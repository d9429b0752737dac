"""Where to save a ``# ...`` message (``ui/memory.py``): the workspace's AGENTS.md or the person's
own, with the change shown as a diff (``call_preview.diff_text``: safe text, markup never parsed,
hidden characters as escapes). Tab (or w / u) picks the file, Enter saves once the dialog is
armed (``GuardedModal``: typing never saves), Esc cancels.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ...wiring.memory import USER, WORKSPACE, memory_diff, read_text, with_line
from ..call_preview import diff_text
from ..sanitize import exact_text
from .key_guard import GuardedModal

KEYS = "Enter save · Tab (w/u) other file · Esc cancel (the text goes back to the box)"


class MemoryDialog(GuardedModal[str | None]):
    """Dismisses with the target (``WORKSPACE`` or ``USER``) for an armed Enter, None for Esc."""

    DEFAULT_CSS = """
    MemoryDialog { align: center middle; }
    MemoryDialog > Vertical {
        width: 90%; height: auto; border: round $primary; background: $surface; padding: 0 1;
    }
    MemoryDialog #diff { height: auto; max-height: 20; background: $boost; }
    MemoryDialog #keys { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "save", "Save"),
        Binding("escape", "cancel", "Cancel"),
        Binding("tab", "other_file", "Other file", show=False),
        Binding("w", f"pick('{WORKSPACE}')", show=False),
        Binding("u", f"pick('{USER}')", show=False),
    ]

    def __init__(self, line: str, files: dict[str, Path]) -> None:
        super().__init__()
        self.line = line
        self.files = files
        self.target = WORKSPACE

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="where")
            yield VerticalScroll(Static(id="diff-text"), id="diff")
            yield Static(Text(KEYS), id="keys")

    def on_mount(self) -> None:
        self._show()

    def diff(self) -> list[str]:
        path = self.files[self.target]
        old = read_text(path)
        return memory_diff(str(path), old, with_line(old, self.line))

    def _show(self) -> None:
        names = {WORKSPACE: "the workspace's AGENTS.md", USER: "your own AGENTS.md"}
        where = Text("Remember this in ")
        where.append(names[self.target], "bold")
        where.append(" (")
        where.append_text(exact_text(str(self.files[self.target]), one_line=True))
        where.append(")?")
        self.query_one("#where", Static).update(where)
        self.query_one("#diff-text", Static).update(diff_text("\n".join(self.diff())))

    def action_other_file(self) -> None:
        self.action_pick(USER if self.target == WORKSPACE else WORKSPACE)

    def action_pick(self, target: str) -> None:
        self.target = target
        self._show()

    def action_save(self) -> None:
        if self.guard.decides():
            self.dismiss(self.target)

    def action_cancel(self) -> None:
        self.dismiss(None)
