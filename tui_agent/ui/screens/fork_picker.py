"""Pick the message to fork a session at: a list of its messages, numbered, with a first line.

Messages are numbered as ``agent.fork`` numbers them (every user and assistant record in file
order, from 1). Each row shows the number, who spoke and the first line of what was said (an
assistant turn with no text names the tools it called); the last message is highlighted at
first. Enter (or a click) forks there, Esc cancels. The session is read in a worker thread;
every line shown goes through ``sanitize``. Enter forks only once armed (``GuardedModal``):
typing never forks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...session import SessionError, SessionStore
from ...session.records import AssistantRecord, UserRecord, WithdrawRecord
from ..sanitize import visible_line
from .key_guard import GuardedModal

PREVIEW_CHARS = 100


def first_line(text: str) -> str:
    """The first non-blank line of ``text``, cut to PREVIEW_CHARS."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


def message_rows(records: Sequence[Any]) -> list[tuple[int, str, str]]:
    """(number, who, first line) of each numbered message of ``records``; a withdrawn one
    (stopped and taken back into the message box) keeps its number but is not listed."""
    rows: list[tuple[int, str, str]] = []
    withdrawn: set[int] = set()  # stopped by Esc and taken back: not a place to fork at
    number = last_user = 0
    for record in records:
        if isinstance(record, UserRecord):
            number = last_user = number + 1
            rows.append((number, "you", first_line(record.text)))
        elif isinstance(record, AssistantRecord):
            number += 1
            line = first_line(record.text)
            if not line and record.tool_calls:
                line = "(calls " + ", ".join(call.name for call in record.tool_calls) + ")"
            rows.append((number, "model", line or "(no text)"))
        elif isinstance(record, WithdrawRecord) and last_user:
            withdrawn.add(last_user)
    return [row for row in rows if row[0] not in withdrawn]


def row_text(number: int, who: str, line: str) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{number:>4}  ", style="bold")
    text.append(f"{who:<6}", style="dim")
    text.append(visible_line(line))
    return text


class ForkPicker(GuardedModal[int | None]):
    """Dismisses with the chosen message number, or None."""

    DEFAULT_CSS = """
    ForkPicker { align: center middle; }
    ForkPicker > Vertical {
        width: 90%; height: 80%; border: round $accent; background: $surface; padding: 0 1;
    }
    ForkPicker OptionList { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, session_id: str, store: SessionStore | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.store = store if store is not None else SessionStore()
        self.rows: list[tuple[int, str, str]] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                visible_line(
                    f"Fork {self.session_id} at which message? The fork keeps the conversation "
                    "up to and including it. Enter forks, Esc cancels."
                ),
                id="fork-title",
            )
            yield OptionList(id="messages")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._load()

    def on_mouse_down(self) -> None:
        self.guard.clicked()

    @work(thread=True, exclusive=True, group="fork-picker-load")
    def _load(self) -> None:
        try:
            records = self.store.load(self.session_id).records
        except SessionError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._show, message_rows(records))

    def _failed(self, error: str) -> None:
        self.notify(visible_line(error), severity="error", markup=False)
        self.dismiss(None)

    def _show(self, rows: list[tuple[int, str, str]]) -> None:
        self.rows = rows
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(Option(row_text(*row), id=str(row[0])) for row in rows)
        if rows:
            options.highlighted = len(rows) - 1

    @on(OptionList.OptionSelected, "#messages")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None and self.guard.decides():
            self.dismiss(int(event.option.id))

    def action_cancel(self) -> None:
        self.dismiss(None)
