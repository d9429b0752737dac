"""Markdown that streams in and stays fast however long it grows.

Only the last segment (about 8 KB, see markdown_split) is a live Textual Markdown widget, fed
through ``Markdown.get_stream``; each finished segment is replaced by one FrozenMarkdown, and at
``finish()`` the live tail is rendered once the same way. So the cost of a delta depends on the
size of one segment, not on the length of the answer, and a finished answer is a handful of
widgets.

``append`` and ``finish`` are plain calls that only queue work: a worker of this widget does the
mounting and streaming in order, and coalesces whatever queued up while it was busy. They can be
called before the widget is mounted: the work waits for the mount.

The text given here must already be safe to render (``markdown_safe``); this widget only lays
it out.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from .frozen_markdown import FrozenMarkdown
from .markdown_split import FREEZE_AT, Cut, MarkdownSplitter


@dataclass(frozen=True, slots=True)
class _Freeze:
    """Replace the live widget by this segment's display text, rendered once."""

    display: str
    last: bool = False  # the answer is complete: nothing streams after this


_Work = str | _Freeze


def finished_segments(text: str, freeze_at: int = FREEZE_AT) -> tuple[str, ...]:
    """The segments ``append(text)`` then ``finish()`` would give, without a widget (a resumed
    session keeps thousands of finished answers as data)."""
    done: list[str] = []
    current: list[str] = []
    for piece in MarkdownSplitter(freeze_at).feed(text):
        if isinstance(piece, Cut):
            done.append("".join(current) + piece.close)
            current = [piece.reopen] if piece.reopen else []
        else:
            current.append(piece)
    done.append("".join(current))
    return tuple(part for part in done if part.strip())


class SegmentedMarkdown(Vertical):
    """A streamed markdown document: frozen segments, then one small live Markdown."""

    DEFAULT_CSS = """
    SegmentedMarkdown {
        height: auto;
    }
    SegmentedMarkdown > Vertical {
        height: auto;
    }
    SegmentedMarkdown > Markdown {
        margin: 0;
    }
    """

    def __init__(
        self,
        *,
        freeze_at: int = FREEZE_AT,
        segments: tuple[str, ...] | None = None,
        classes: str | None = None,
    ) -> None:
        """Streams from empty, or with ``segments`` shows a finished document (a snapshot)."""
        super().__init__(classes=classes)
        self._splitter = MarkdownSplitter(freeze_at)
        self._text: list[str] = []  # everything appended, for ``text``
        self._done: list[str] = list(segments or ())  # display text of each finished segment
        self._current: list[str] = []  # display text of the segment still streaming
        self._work: deque[_Work] = deque()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._finished = segments is not None
        self._restored = segments is not None
        # Finished segments go in a container of their own: while only the live widget changes,
        # Textual reuses the container's cached arrangement instead of laying out each segment.
        self._frozen = Vertical()
        self._live: Markdown | None = None
        self._stream: MarkdownStream | None = None

    # -- the data side: plain, synchronous, O(len(delta)) -----------------------------------

    @property
    def text(self) -> str:
        """Everything appended so far (for a restored snapshot: its segments)."""
        if self._restored:
            return "".join(self._done)
        if len(self._text) > 1:
            self._text[:] = ["".join(self._text)]
        return self._text[0] if self._text else ""

    @property
    def finished(self) -> bool:
        return self._finished

    def segments(self) -> tuple[str, ...]:
        """The display text of each segment, the way a finished document is rebuilt."""
        parts = [*self._done, "".join(self._current)]
        return tuple(part for part in parts if part.strip())

    def append(self, text: str) -> None:
        """Queue ``text`` (already safe) for display; ignored once finished."""
        if self._finished or not text:
            return
        self._text.append(text)
        for piece in self._splitter.feed(text):
            if isinstance(piece, Cut):
                self._end_segment(piece)
            else:
                self._current.append(piece)
                self._queue(piece)

    def finish(self) -> None:
        """The document is complete: the live tail is rendered once and streaming stops."""
        if self._finished:
            return
        self._finished = True
        self._end_segment(Cut(), last=True)

    def _end_segment(self, cut: Cut, *, last: bool = False) -> None:
        display = "".join(self._current) + cut.close
        self._done.append(display)
        self._current = [cut.reopen] if cut.reopen else []
        self._queue(_Freeze(display, last))

    def _queue(self, work: _Work) -> None:
        self._work.append(work)
        self._idle.clear()
        self._wake.set()

    async def wait_idle(self) -> None:
        """Wait until the work queued so far was handed to the widgets (tests, benchmarks)."""
        await self._idle.wait()

    # -- the widget side: one worker, in order ----------------------------------------------

    def compose(self) -> ComposeResult:
        with self._frozen:
            if self._restored:
                for display in self.segments():
                    yield FrozenMarkdown(display)

    def on_mount(self) -> None:
        if not self._restored:
            self.run_worker(self._pump(), name="markdown stream", group="markdown-stream")

    def on_unmount(self) -> None:
        # Textual's MarkdownStream holds its task only in itself; dropped with this widget while
        # pending (the app quit mid-answer), asyncio reports it destroyed pending on stderr.
        task = getattr(self._stream, "_task", None)
        if isinstance(task, asyncio.Task):
            task.cancel()

    async def _pump(self) -> None:
        unwritten: list[str] = []
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._work:
                work = self._work.popleft()
                if isinstance(work, _Freeze):
                    # What was not yet streamed is part of the frozen render: skip streaming it.
                    unwritten.clear()
                    await self._freeze(work.display)
                    if work.last:
                        self._idle.set()
                        return
                else:
                    unwritten.append(work)
            if unwritten:
                await self._write("".join(unwritten))
                unwritten.clear()
            if not self._work:
                self._idle.set()

    async def _write(self, text: str) -> None:
        if self._stream is not None:
            await self._stream.write(text)
            return
        # A fresh live widget starts with its whole segment so far, passed to the constructor:
        # Markdown renders its initial text on mount, so nothing streamed can race with that.
        self._live = Markdown("".join(self._current), open_links=False)
        await self.mount(self._live)
        self._stream = Markdown.get_stream(self._live)

    async def _freeze(self, display: str) -> None:
        live, stream = self._live, self._stream
        self._live = self._stream = None
        if stream is not None:
            await stream.stop()
        with self.app.batch_update():
            if display.strip():
                await self._frozen.mount(FrozenMarkdown(display))
            if live is not None:
                await live.remove()
