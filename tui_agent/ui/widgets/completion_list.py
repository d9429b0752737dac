"""The completion list above the message box: slash commands, their arguments, @files.

It never takes focus: the message box keeps it, and ``PromptTools`` moves the highlight (Up,
Down), takes the highlighted entry (Tab, or Enter) and closes the list (Esc)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ..sanitize import visible_line

MAX_SHOWN = 50


class CompletionList(OptionList, can_focus=False):
    DEFAULT_CSS = """
    CompletionList {
        height: auto;
        max-height: 10;
        border: round $accent 60%;
        padding: 0;
        display: none;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Any] = []

    def show(self, entries: list[Any]) -> None:
        """``entries`` have ``label`` and ``description``; an empty list hides the list."""
        self.entries = entries[:MAX_SHOWN]
        self.clear_options()
        for entry in self.entries:
            text = Text(no_wrap=True, overflow="ellipsis")
            text.append(visible_line(entry.label), style="bold")
            if entry.description:
                text.append("  " + visible_line(entry.description), style="dim")
            self.add_option(Option(text))
        self.display = bool(self.entries)
        if self.entries:
            self.highlighted = 0

    def hide(self) -> None:
        self.show([])

    @property
    def open(self) -> bool:
        return bool(self.display and self.entries)

    def move(self, step: int) -> None:
        if self.entries:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.entries)

    def chosen(self) -> Any:
        if not self.entries or self.highlighted is None:
            return None
        return self.entries[self.highlighted]
