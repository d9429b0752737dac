"""Entering AUTO-ALL asks first: every tool call would run without a question from then on.

A small y/n dialog. Typing never answers it (see ``arming``): y and n decide only once the
dialog has had the person's attention for the arming delay with no key pressed, every key
before that starting the delay over; a key that does not decide is swallowed, never typed
elsewhere. Esc (or n) keeps the current mode at any time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..arming import ARMING_S, Arming, key_clock, now

QUESTION = (
    "Switch to AUTO-ALL? Every tool call the model makes (commands, file writes, edits) will run "
    "at once, without asking, until you switch back (F3)."
)


class ConfirmAutoAll(ModalScreen[bool]):
    """Dismisses with True for y (armed), False for n or Esc."""

    DEFAULT_CSS = """
    ConfirmAutoAll { align: center middle; }
    ConfirmAutoAll > Vertical {
        width: 72; height: auto; border: thick $warning; background: $surface; padding: 0 1;
    }
    ConfirmAutoAll #keys { color: $text-muted; }
    ConfirmAutoAll.-armed #keys { color: $text; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "keep", "Keep the mode")]
    arming_delay: ClassVar[float] = ARMING_S

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current
        self.arming = Arming(self.arming_delay)
        self._ok = False  # the key being handled may decide
        self._unlisten: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(QUESTION), id="question")
            yield Static(id="keys")

    def on_mount(self) -> None:
        self._unlisten = key_clock(self.app).listen(self._key)
        self.arming.start(now())
        self._show_keys()
        self.set_interval(0.1, self._show_keys)

    def on_unmount(self) -> None:
        if self._unlisten is not None:
            self._unlisten()

    @property
    def armed(self) -> bool:
        return self.arming.armed(now())

    def _key(self, at: float) -> None:
        self._ok = self.app.screen is self and self.arming.key(at)

    def _show_keys(self) -> None:
        armed = self.armed
        self.set_class(armed, "-armed")
        keys = f"y switch to AUTO-ALL · n or Esc keep {self.current}"
        self.query_one("#keys", Static).update(keys if armed else keys + " (arming…)")

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            return  # the binding keeps the mode
        event.stop()
        event.prevent_default()
        if not self._ok:
            self._show_keys()
            return  # typed too soon: decides nothing
        if event.key == "y":
            self.dismiss(True)
        elif event.key == "n":
            self.dismiss(False)

    def action_keep(self) -> None:
        self.dismiss(False)
