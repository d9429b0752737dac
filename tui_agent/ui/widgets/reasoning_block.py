"""The model's reasoning: collapsed by default, its size counting up while it streams.

Nothing is rendered until the user expands it (most never do); from then on it streams like an
answer. The title says "thinking… N chars" while it streams and "thought · N chars" after.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.widgets import Collapsible

from ..sanitize import markdown_safe
from .markdown_split import FREEZE_AT
from .segmented_markdown import SegmentedMarkdown


@dataclass(frozen=True, slots=True)
class ReasoningSnapshot:
    text: str
    finished: bool

    def build(self) -> ReasoningBlock:
        block = ReasoningBlock()
        block.append(self.text)
        if self.finished:
            block.finish()
        return block


class ReasoningBlock(Collapsible):
    """Streamed reasoning text behind a one-line title."""

    DEFAULT_CSS = """
    ReasoningBlock {
        margin: 0 0 1 0;
        padding-bottom: 0;
        border-top: none;
        background: $background;
        color: $text-muted;
    }
    ReasoningBlock > Contents {
        padding: 0 0 0 2;
    }
    """

    def __init__(self, *, freeze_at: int = FREEZE_AT) -> None:
        self.body = SegmentedMarkdown(freeze_at=freeze_at)
        super().__init__(self.body, title="thinking…", collapsed=True)
        self._raw: list[str] = []  # everything received; the body gets it once expanded
        self._chars = 0
        self._opened = False
        self._finished = False

    @property
    def text(self) -> str:
        """All reasoning so far, as received."""
        if len(self._raw) > 1:
            self._raw[:] = ["".join(self._raw)]
        return self._raw[0] if self._raw else ""

    @property
    def settled(self) -> bool:
        return self._finished

    def append(self, text: str) -> None:
        """Add a delta of reasoning; ignored after ``finish``."""
        if self._finished or not text:
            return
        self._chars += len(text)
        self._raw.append(text)
        if self._opened:
            self.body.append(markdown_safe(text))
        self.title = f"thinking… {self._chars:,} chars"

    def finish(self) -> None:
        """Reasoning is over (the answer started, or the turn ended)."""
        if self._finished:
            return
        self._finished = True
        self.title = f"thought · {self._chars:,} chars"
        if self._opened:
            self.body.finish()

    def on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        if event.collapsible is not self or self._opened:
            return
        self._opened = True
        self.body.append(markdown_safe(self.text))
        if self._finished:
            self.body.finish()

    def snapshot(self) -> ReasoningSnapshot:
        return ReasoningSnapshot(self.text, self._finished)
