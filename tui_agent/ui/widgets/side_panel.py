"""This session's tool calls and their states, newest last (toggled with F2)."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..sanitize import visible

_STYLES = {
    "preparing": "cyan",
    "waiting": "yellow",
    "approved": "green",
    "running": "bold cyan",
    "done": "green",
    "failed": "red",
    "denied": "magenta",
    "cancelled": "dim",
    "not run": "dim",
    "invalid": "red",
    "interrupted": "dim red",
}


class SidePanel(VerticalScroll):
    DEFAULT_CSS = """
    SidePanel {
        width: 32;
        border-left: vkey $panel;
        padding: 0 1;
    }
    SidePanel > .title { text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-empty")  # until its first call (see app.tcss)
        self._rows: dict[str, Static] = {}
        self._names: dict[str, str] = {}
        self._turn = 0
        self._pending: dict[int, str] = {}  # position -> row key, until the call id is known

    def on_mount(self) -> None:
        self.mount(Static("Tool calls", classes="title"))

    def add_call(self, position: int, name: str) -> None:
        if position == 0:
            self._turn += 1
        key = f"{self._turn}:{position}"
        self.remove_class("-empty")
        self._pending[position] = key
        self._names[key] = name
        row = Static()
        self._rows[key] = row
        self.mount(row)
        self._paint(key, "preparing")

    def bind_id(self, position: int, call_id: str) -> None:
        key = self._pending.pop(position, None)
        if key is not None and call_id:
            self._rows[call_id] = self._rows.pop(key)
            self._names[call_id] = self._names.pop(key)

    def settle_pending(self, state: str) -> None:
        """The turn ended without ids for its calls (it was truncated): show them as ``state``."""
        for key in self._pending.values():
            self._paint(key, state)
        self._pending.clear()

    def set_state(self, call_id: str, state: str) -> None:
        if call_id in self._rows:
            self._paint(call_id, state)

    def _paint(self, key: str, state: str) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(visible(self._names.get(key, "?")))
        text.append(f" {state}", style=_STYLES.get(state, ""))
        self._rows[key].update(text)
