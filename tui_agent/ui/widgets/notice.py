"""A one-line notice in the transcript (a retry, a rename, an error), coloured by level."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ..sanitize import safe_text

_ICONS: dict[str, str] = {"info": "• ", "warning": "⚠ ", "error": "✗ "}


@dataclass(frozen=True, slots=True)
class NoticeSnapshot:
    text: str
    level: str

    def build(self) -> Notice:
        return Notice(self.text, self.level)


class Notice(Static):
    """``text`` after an icon for ``level`` (info, warning or error; anything else is info)."""

    DEFAULT_CSS = """
    Notice {
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    Notice.-warning {
        color: $text-warning;
    }
    Notice.-error {
        color: $text-error;
    }
    """

    def __init__(self, text: str, level: str = "info") -> None:
        level = level if level in _ICONS else "info"
        super().__init__(Text.assemble(_ICONS[level], safe_text(text)), classes=f"-{level}")
        self.text = text
        self.level = level

    @property
    def settled(self) -> bool:
        return True

    def snapshot(self) -> NoticeSnapshot:
        return NoticeSnapshot(self.text, self.level)
