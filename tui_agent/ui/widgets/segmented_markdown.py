"""Markdown that streams in and stays fast however long it grows.

Only the last segment (about 8 KB, see markdown_split) is a live Textual Markdown widget, fed
with ``Markdown.append``; each finished segment is replaced by one FrozenMarkdown, and at
``finish()`` the live tail is frozen the same way. So the cost of a delta depends on the size of
one segment, not on the length of the answer, a finished answer is a handful of widgets, and a
frozen segment is rendered only when it is painted (see frozen_markdown). Frozen widgets of
2-4 KB, so that less off-screen text is rendered with what is on screen, were measured (bench/
ui_answer_bench.py) and not kept: mounting 4x the widgets cost more at 1 MB (+25%) than the
smaller renders saved at 20 KB (within the noise).

``append`` and ``finish`` are plain calls that only queue work: a worker of this widget does the
mounting and appending in order, and coalesces whatever queued up while it was busy (the job
Textual's MarkdownStream does, without its background task: see ``_pump``). They can be called
before the widget is mounted: the work waits for the mount.

The display cannot die silently: if anything in it fails, the error is logged and whatever was
not yet shown is shown as plain text, kept up to date until the document is finished.

The text given here must already be safe to render (``markdown_safe``); this widget only lays
it out.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Markdown, Static

from .frozen_markdown import FrozenMarkdown
from .markdown_split import FREEZE_AT, Cut, MarkdownSplitter

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Freeze:
    """Replace the live widget by segment ``index``'s display text, rendered once."""

    index: int
    display: str
    last: bool = False  # the answer is complete: nothing streams after this


_Work = str | _Freeze


def finished_segments(text: str, freeze_at: int = FREEZE_AT) -> tuple[str, ...]:
    """The segments ``append(text)`` then ``finish()`` would give, without a widget (a resumed
    session keeps thousands of finished answers as data). Streamed in other feeds, a burst may
    be cut elsewhere (markdown_split): the same text, shown the same."""
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
    """A streamed markdown document: frozen segments, then one small live Markdown.

    ``make_live`` and ``make_frozen`` build the two kinds of widget; a subclass may override
    them (the tests use this to make the display fail and see the fallback).
    """

    DEFAULT_CSS = """
    SegmentedMarkdown {
        height: auto;
    }
    SegmentedMarkdown > Vertical {
        height: auto;
    }
    SegmentedMarkdown > Vertical > .-follows {
        margin-top: 1;
    }
    SegmentedMarkdown > Markdown {
        margin: 0;
    }
    SegmentedMarkdown > .plain {
        height: auto;
        padding: 0 2;
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
        self._shown = len(self._done)  # segments of _done given to a frozen widget (or skipped)
        self._plain: Static | None = None  # after a failure: the rest, as plain text

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

    @property
    def failed(self) -> bool:
        """The markdown display failed: the rest is shown as plain text (see the log)."""
        return self._plain is not None

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
        self._queue(_Freeze(len(self._done) - 1, display, last))

    def _queue(self, work: _Work) -> None:
        if self._plain is None:  # once failed, the fallback reads the data side directly
            self._work.append(work)
        self._idle.clear()
        self._wake.set()

    async def wait_idle(self) -> None:
        """Wait until the work queued so far is in the widgets (tests, benchmarks)."""
        await self._idle.wait()

    def unshown(self) -> str:
        """The display text not (yet) in a frozen widget: the live or plain part."""
        return "".join(self._done[self._shown :]) + "".join(self._current)

    # -- the widgets that show it -----------------------------------------------------------

    def make_live(self, source: str) -> Markdown:
        """The live widget for the segment still streaming, starting with ``source``."""
        return Markdown(source, open_links=False)

    def make_frozen(self, display: str) -> Widget:
        """The widget for a finished segment."""
        return FrozenMarkdown(display)

    def _frozen_widget(self, display: str, index: int) -> Widget:
        widget = self.make_frozen(display)
        if index:
            widget.add_class("-follows")  # a blank line above, as between markdown blocks
        return widget

    def compose(self) -> ComposeResult:
        with self._frozen:
            if self._restored:
                for index, display in enumerate(self.segments()):
                    yield self._frozen_widget(display, index)

    def on_mount(self) -> None:
        if not self._restored:
            self.run_worker(self._pump(), name="markdown stream", group="markdown-stream")

    # -- one worker, in order ---------------------------------------------------------------

    async def _pump(self) -> None:
        """Runs the work, or after a failure the plain fallback, until the document is done.

        The live widget is fed with ``await Markdown.append`` right here, not through Textual's
        MarkdownStream: in Textual 8.2.8 its ``stop()`` cancels a task that may not have started
        yet, so the CancelledError escapes ``stop()`` (its ``_run`` catches it only once running),
        ended this worker silently and lost the rest of the answer. Appends made while one is
        running are coalesced by the loop below, as MarkdownStream would, with no task to stop.
        """
        try:
            await self._stream()
            return
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or task.cancelling():
                raise  # this widget is going away (removed, or the app quits)
            # A CancelledError no one asked for is a failure like any other.
            log.error("markdown display hit a stray CancelledError", exc_info=True)
        except Exception:
            log.error("markdown display failed; the rest is shown as plain text", exc_info=True)
        finally:
            self._idle.set()  # whatever happens, nobody waits forever
        await self._fall_back()

    async def _stream(self) -> None:
        unwritten: list[str] = []
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._work:
                work = self._work.popleft()
                if isinstance(work, _Freeze):
                    # What was not yet streamed is part of the frozen render: skip streaming it.
                    unwritten.clear()
                    # And every segment frozen since goes in the same mount (a burst).
                    freezes = [work]
                    last = max(
                        (i for i, later in enumerate(self._work) if isinstance(later, _Freeze)),
                        default=-1,
                    )
                    for _ in range(last + 1):
                        later = self._work.popleft()
                        if isinstance(later, _Freeze):
                            freezes.append(later)
                    await self._freeze(freezes)
                    if freezes[-1].last:
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
        if self._live is not None:
            await self._live.append(text)
            return
        # A fresh live widget starts with its whole segment so far, passed to the constructor:
        # Markdown renders its initial text on mount, so nothing appended can race with that.
        self._live = self.make_live("".join(self._current))
        await self.mount(self._live)

    async def _freeze(self, works: list[_Freeze]) -> None:
        with self.app.batch_update():
            index = len(self._frozen.children)
            widgets: list[Widget] = []
            for work in works:
                if work.display.strip():
                    widgets.append(self._frozen_widget(work.display, index + len(widgets)))
            if widgets:
                await self._frozen.mount_all(widgets)
            self._shown = works[-1].index + 1
            live, self._live = self._live, None
            if live is not None:
                await live.remove()

    async def _fall_back(self) -> None:
        """Show what no frozen widget shows as plain text, and keep it current until the end."""
        self._work.clear()
        plain = self._plain = Static(classes="plain")
        self._live = None
        try:
            # The plain text starts where the frozen segments end: any live widget goes.
            await self.query_children(Markdown).remove()
            await self.mount(plain)
            while True:
                self._wake.clear()
                plain.update(Text(self.unshown()))
                self._idle.set()
                if self._finished:
                    return
                await self._wake.wait()
        except Exception:
            log.error("the plain-text fallback failed too", exc_info=True)
        finally:
            self._idle.set()
