"""The assistant's answer as it streams: markdown, kept fast by freezing finished segments.

``append`` is called with coalesced deltas (the app batches them, ~20-30 a second) and only
queues work, see SegmentedMarkdown. ``finish`` renders the live tail once. ``discard`` is for a
truncated turn: the streamed text stays, greyed and struck through, under a line saying why.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown, Static

from ..sanitize import markdown_safe, safe_text
from .markdown_split import FREEZE_AT
from .segmented_markdown import SegmentedMarkdown, finished_segments


@dataclass(frozen=True, slots=True)
class AssistantSnapshot:
    segments: tuple[str, ...]
    discarded: str | None

    def build(self) -> AssistantMessage:
        return AssistantMessage(snapshot=self)

    @classmethod
    def of_text(cls, text: str) -> AssistantSnapshot:
        """A finished answer, as a streamed then finished one would be kept."""
        return cls(finished_segments(markdown_safe(text)), None)


class AssistantMessage(Vertical):
    """One streamed answer. All text passes through ``markdown_safe`` before it is shown."""

    DEFAULT_CSS = """
    AssistantMessage {
        height: auto;
        margin: 0 0 1 0;
    }
    AssistantMessage > .reason {
        height: auto;
        padding: 0 2;
        color: $text-warning;
        display: none;
    }
    AssistantMessage.-discarded > .reason {
        display: block;
    }
    AssistantMessage.-discarded > SegmentedMarkdown {
        text-opacity: 60%;
        text-style: strike;
    }
    """

    def __init__(
        self, *, freeze_at: int = FREEZE_AT, snapshot: AssistantSnapshot | None = None
    ) -> None:
        """A new answer to stream into, or with ``snapshot`` a finished one rebuilt."""
        super().__init__()
        segments = snapshot.segments if snapshot is not None else None
        self.body = SegmentedMarkdown(freeze_at=freeze_at, segments=segments)
        # Always there (hidden until discarded): ``discard`` may come while the answer is being
        # mounted, after compose ran and before is_mounted is true, and must not be lost.
        self._reason = Static(classes="reason")
        self._discarded: str | None = None
        if snapshot is not None and snapshot.discarded is not None:
            self.discard(snapshot.discarded)

    def compose(self) -> ComposeResult:
        yield self.body
        yield self._reason

    @property
    def text(self) -> str:
        """The answer so far, as shown (after ``markdown_safe``)."""
        return self.body.text

    @property
    def discarded(self) -> str | None:
        """The reason given to ``discard``, if it was discarded."""
        return self._discarded

    @property
    def settled(self) -> bool:
        return self.body.finished

    def append(self, text: str) -> None:
        """Add a delta of the answer; ignored after ``finish`` or ``discard``."""
        self.body.append(markdown_safe(text))

    def finish(self) -> None:
        """The turn completed: render the live tail once; nothing more streams."""
        self.body.finish()

    def discard(self, reason: str) -> None:
        """The turn was truncated: grey out what streamed and say why (e.g. "turn discarded:
        the stream was cut; nothing ran")."""
        if self._discarded is not None:
            return
        self._discarded = reason
        self.body.finish()
        self._reason.update(safe_text(f"⚠ {reason}"))
        self.add_class("-discarded")

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A link in the answer was clicked: show its target and open it only if confirmed."""
        from ..screens.open_link import OpenLink

        event.stop()
        href = event.href

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.app.open_url(href)

        self.app.push_screen(OpenLink(href), answered)

    def snapshot(self) -> AssistantSnapshot:
        return AssistantSnapshot(self.body.segments(), self._discarded)
