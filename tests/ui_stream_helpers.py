"""Streaming answers into the real transcript the way the event router does, and checking that
every character of them reached the widgets that paint the screen."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Markdown

from tui_agent.text.sanitize import markdown_safe
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.frozen_markdown import FrozenMarkdown
from tui_agent.ui.widgets.segmented_markdown import SegmentedMarkdown, finished_segments
from tui_agent.ui.widgets.transcript import Transcript

IDLE_TIMEOUT_S = 30.0  # a pump that died never gets idle: fail instead of hanging
FLUSH_INTERVAL_S = 1 / 30  # the router's coalescing interval
_WORD = re.compile(r"[A-Za-z0-9]+")


class TranscriptApp(App[None]):
    """Only the transcript, focused, as the conversation is shown in the app."""

    def compose(self) -> ComposeResult:
        yield Transcript()

    def on_mount(self) -> None:
        self.query_one(Transcript).focus()


@dataclass(slots=True)
class Batch:
    """Deltas that reach the widget in one ``append`` (the router's coalescing), then a pause
    (None: no await at all; 0: one pass of the event loop; else seconds) and maybe an action
    of the person: "home", "end" (keys), "resize"."""

    deltas: list[str]
    pause: float | None = 0.0
    action: str | None = None


@dataclass(slots=True)
class Plan:
    batches: list[Batch]
    ending: str = "finish"  # or "discard" (Esc), or "next" (a second answer starts at once)
    sizes: Sequence[tuple[int, int]] = field(default_factory=lambda: ((100, 30), (60, 20)))


def cut(text: str, sizes: Sequence[int]) -> list[str]:
    """``text`` in pieces of the given sizes, cycled."""
    pieces: list[str] = []
    position = 0
    index = 0
    while position < len(text):
        size = max(1, sizes[index % len(sizes)])
        pieces.append(text[position : position + size])
        position += size
        index += 1
    return pieces


async def full_speed(
    append: Callable[[str], None], deltas: Sequence[str], per_read: int = 50
) -> None:
    """Append ``deltas`` with no delay, coalesced every FLUSH_INTERVAL_S as the router does;
    the event loop runs after every ``per_read`` deltas, as after a socket read."""
    pending: list[str] = []
    last = time.monotonic()
    for index, delta in enumerate(deltas, 1):
        pending.append(delta)
        now = time.monotonic()
        if now - last >= FLUSH_INTERVAL_S:
            append("".join(pending))
            pending.clear()
            last = now
        if index % per_read == 0:
            await asyncio.sleep(0)
    if pending:
        append("".join(pending))


async def play(
    pilot: Pilot[None], transcript: Transcript, plan: Plan
) -> tuple[AssistantMessage, str]:
    """Stream one answer; returns it and the last action ("home" means scrolled away)."""
    answer = transcript.start_assistant()
    last = "end"
    for index, batch in enumerate(plan.batches):
        answer.append("".join(batch.deltas))
        if batch.action in ("home", "end"):
            await pilot.press(batch.action)
            last = batch.action
        elif batch.action == "resize":
            await pilot.resize_terminal(*plan.sizes[index % len(plan.sizes)])
        if batch.pause is not None:
            await asyncio.sleep(batch.pause)
    if plan.ending == "discard":
        answer.discard("turn discarded: Esc")
    else:
        answer.finish()
    return answer, last


async def settle(body: SegmentedMarkdown, pilot: Pilot[None]) -> None:
    """Wait until ``body`` has shown all its work, then one refresh (layout and paint)."""
    await asyncio.wait_for(body.wait_idle(), IDLE_TIMEOUT_S)
    await pilot.pause()


def words(markdown: str) -> list[str]:
    """The words of a markdown source that rendering keeps (fence lines are not shown)."""
    shown = (line for line in markdown.splitlines() if not line.lstrip().startswith("```"))
    return _WORD.findall("\n".join(shown))


def assert_shown_whole(body: SegmentedMarkdown, text: str) -> None:
    """Everything of ``text`` is in the frozen widgets of ``body``, segment by segment, and
    their rendered lines hold every word of it, in order."""
    assert not body.failed
    assert not body.query(Markdown), "a live widget is left after finish"
    frozen = list(body.query(FrozenMarkdown))
    sources = [widget.source for widget in frozen]
    # Where a burst is cut depends on how the text came (markdown_split); what the segments
    # hold together does not: the text, with any overlong fence closed and reopened.
    assert "".join(sources) == "".join(finished_segments(markdown_safe(text)))
    rendered = [word for widget in frozen for word in words("\n".join(widget.lines))]
    assert rendered == words(markdown_safe(text)), "a rendered line is missing words"


def assert_follows(transcript: Transcript) -> None:
    """The view is at the bottom and the end of the last item is on screen."""
    assert transcript.scroll_y == transcript.max_scroll_y
    last = transcript.mounted_items[-1]
    bottom = last.virtual_region.bottom
    assert bottom <= transcript.scroll_y + transcript.scrollable_content_region.height
