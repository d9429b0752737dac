"""The user's message in the transcript: plain text, shown exactly as typed (never markup)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from ..sanitize import safe_text


@dataclass(frozen=True, slots=True)
class UserSnapshot:
    text: str

    def build(self) -> UserMessage:
        return UserMessage(self.text)


class UserMessage(Static, can_focus=True):
    """One user message; control characters are shown as escapes. Focused (a click, Tab), r
    offers to rewind to just before it."""

    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0;
        padding: 0 1;
        background: $boost;
        border-left: outer $primary;
    }
    UserMessage:focus { border-left: outer $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "rewind", "Rewind to here")]

    class RewindRequested(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, text: str) -> None:
        super().__init__(safe_text(text))
        self.text = text

    @property
    def settled(self) -> bool:
        return True

    def action_rewind(self) -> None:
        self.post_message(self.RewindRequested(self.text))

    def snapshot(self) -> UserSnapshot:
        return UserSnapshot(self.text)
