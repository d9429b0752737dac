"""Search your earlier messages (all sessions of this workspace): Alt+R.

Type to narrow the list (substring first, then the characters in order); Up/Down move, Enter
puts the message into the message box (nothing is sent), Esc closes. The sessions are read in
a worker thread."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...prompting.history import PastMessage, search_messages, workspace_messages
from ...session import SessionStore
from ..sanitize import visible_line

PREVIEW_CHARS = 160


def preview(text: str) -> Text:
    line = " ⏎ ".join(part.strip() for part in text.splitlines() if part.strip())
    if len(line) > PREVIEW_CHARS:
        line = line[: PREVIEW_CHARS - 1] + "…"
    return Text(visible_line(line), no_wrap=True, overflow="ellipsis")


class HistorySearch(ModalScreen[str | None]):
    DEFAULT_CSS = """
    HistorySearch { align: center middle; }
    HistorySearch > Vertical {
        width: 90%; height: 80%; border: round $accent; background: $surface; padding: 0 1;
    }
    HistorySearch OptionList { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("down", "move(1)", "Next", show=False),
        Binding("up", "move(-1)", "Previous", show=False),
    ]

    def __init__(self, store: SessionStore, workspace: str) -> None:
        super().__init__()
        self.store = store
        self.workspace = workspace
        self.entries: list[PastMessage] = []
        self.shown: list[PastMessage] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Your earlier messages in this workspace · Enter: into the box · Esc")
            yield Input(placeholder="search", id="query")
            yield OptionList(id="found")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._load()

    @work(exclusive=True, group="history")
    async def _load(self) -> None:
        self.entries = await asyncio.to_thread(
            workspace_messages, self.store.list(), self.workspace
        )
        self._show(self.query_one(Input).value)

    def _show(self, query: str) -> None:
        self.shown = search_messages(self.entries, query)
        found = self.query_one(OptionList)
        found.clear_options()
        found.add_options([Option(preview(entry.text)) for entry in self.shown])
        if self.shown:
            found.highlighted = 0

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._show(event.value)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        found = self.query_one(OptionList)
        if self.shown and found.highlighted is not None:
            self.dismiss(self.shown[found.highlighted].text)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown[event.option_index].text)

    def action_move(self, step: int) -> None:
        found = self.query_one(OptionList)
        if self.shown:
            found.highlighted = ((found.highlighted or 0) + step) % len(self.shown)

    def action_close(self) -> None:
        self.dismiss(None)
