"""The user's message in the transcript: plain text, shown exactly as typed (never markup)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.widgets import Static

from ..sanitize import safe_text


@dataclass(frozen=True, slots=True)
class UserSnapshot:
    text: str

    def build(self) -> UserMessage:
        return UserMessage(self.text)


class UserMessage(Static):
    """One user message; control characters are shown as escapes."""

    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0;
        padding: 0 1;
        background: $boost;
        border-left: outer $primary;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(safe_text(text))
        self.text = text

    @property
    def settled(self) -> bool:
        return True

    def snapshot(self) -> UserSnapshot:
        return UserSnapshot(self.text)
