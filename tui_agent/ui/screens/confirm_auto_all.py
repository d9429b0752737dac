"""Entering AUTO-ALL asks first: every tool call would run without a question from then on.

A small y/n dialog. Typing never answers it (``ArmedYesNo``): y and n decide only once the
dialog has had the person's attention for the arming delay with no key pressed, every key
before that starting the delay over; a key that does not decide is swallowed, never typed
elsewhere. Esc (or n) keeps the current mode at any time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

from .key_guard import ArmedYesNo

QUESTION = (
    "Switch to AUTO-ALL? Every tool call the model makes (commands, file writes, edits) will run "
    "at once, without asking, until you switch back (F3)."
)


class ConfirmAutoAll(ArmedYesNo):
    """Dismisses with True for y (armed), False for n or Esc."""

    DEFAULT_CSS = """
    ConfirmAutoAll > Vertical { width: 72; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "keep", "Keep the mode")]

    def __init__(self, current: str) -> None:
        super().__init__(f"y switch to AUTO-ALL · n or Esc keep {current}")
        self.current = current

    def question(self) -> Iterable[Widget]:
        yield Static(Text(QUESTION), id="question")

    def action_keep(self) -> None:
        self.dismiss(False)
