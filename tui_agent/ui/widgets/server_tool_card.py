"""A tool the provider ran itself (its web search, Google Search grounding): a card that says
so. Nothing of it ran here and nothing was asked; the card shows what it was asked."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ..sanitize import safe_text


@dataclass(frozen=True, slots=True)
class ServerToolSnapshot:
    name: str
    detail: str

    def build(self) -> ServerToolCard:
        return ServerToolCard(self.name, self.detail)


class ServerToolCard(Static):
    DEFAULT_CSS = """
    ServerToolCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: outer $accent;
        background: $surface;
    }
    """

    def __init__(self, name: str, detail: str) -> None:
        line = Text.assemble(
            ("⚙ ", "bold"),
            safe_text(name, "bold", one_line=True),
            ("  ran at the provider · nothing ran here", "dim"),
        )
        if detail:
            line.append("\n")
            line.append_text(safe_text(detail))
        super().__init__(line)
        self.shown = line  # what the card draws, already made safe
        self.name_ = name
        self.detail = detail

    @property
    def settled(self) -> bool:
        return True

    def snapshot(self) -> ServerToolSnapshot:
        return ServerToolSnapshot(self.name_, self.detail)
