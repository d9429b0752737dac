"""The messages typed while the agent worked, waiting above the message box until they are sent.

Alt+Up (from the message box) focuses the list; there ↑↓ choose, ``e`` or Enter takes the
message back into the box to edit (Enter there queues it again in its place), ``d`` or Delete
removes it, ``s`` sends it now when the agent is idle, Tab goes back. The list does not
decide anything by itself: ``message_queue`` does what is chosen.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.widget import Widget

from ..sanitize import visible_line

SHOWN_WIDTH = 200  # characters of a message kept for its one line (the rest is cut on screen)


class QueuedMessages(Widget, can_focus=True):
    DEFAULT_CSS = """
    QueuedMessages {
        height: auto;
        max-height: 7;
        padding: 0 1;
        color: $text-muted;
        border-left: outer $accent 50%;
    }
    QueuedMessages:focus { border-left: outer $accent; color: $text; }
    QueuedMessages.-empty { display: none; }
    """

    def __init__(self, chosen: Callable[[str, int], None], *, id: str | None = None) -> None:
        """``chosen(action, index)``: "edit", "remove" or "send" was pressed on message index."""
        super().__init__(id=id, classes="-empty")
        self.chosen = chosen
        self.items: list[str] = []
        self.held = False  # after a stop: waits for the person instead of going out
        self.selected = 0

    def set_items(self, items: list[str], *, held: bool) -> None:
        self.items, self.held = list(items), held
        self.selected = min(self.selected, max(len(items) - 1, 0))
        self.set_class(not items, "-empty")
        self.refresh(layout=True)

    def render(self) -> Text:
        count = len(self.items)
        when = (
            "held after a stop: sent after your next message, or s sends one now"
            if self.held
            else "sent when the agent is done"
        )
        text = Text(f"queued ({count}) — {when} · alt+↑ edit/remove", style="italic")
        for index, item in enumerate(self.items):
            line = visible_line(item[:SHOWN_WIDTH])
            marker = "▸" if self.has_focus and index == self.selected else " "
            style = "reverse" if self.has_focus and index == self.selected else ""
            text.append("\n")
            text.append(f"{marker}{index + 1}. {line}", style=style)
        if self.has_focus:
            text.append("\n↑↓ choose · e edit · d remove · s send now (idle) · tab back")
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text

    def on_focus(self) -> None:
        self.refresh(layout=True)

    def on_blur(self) -> None:
        self.refresh(layout=True)

    def on_key(self, event: events.Key) -> None:
        key = event.key
        if key in ("up", "down") and self.items:
            step = -1 if key == "up" else 1
            # Stops at the ends (no wrap): Down on the last entry keeps it, so the one shown
            # chosen is the one d removes.
            self.selected = min(max(self.selected + step, 0), len(self.items) - 1)
            self.refresh()
        elif key in ("e", "enter") and self.items:
            self.chosen("edit", self.selected)
        elif key in ("d", "delete", "backspace") and self.items:
            self.chosen("remove", self.selected)
        elif key == "s" and self.items:
            self.chosen("send", self.selected)
        else:
            return
        event.stop()
        event.prevent_default()
