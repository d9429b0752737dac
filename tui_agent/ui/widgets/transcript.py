"""The conversation, newest at the bottom, fast however long the session gets.

Every item (user message, reasoning, answer, tool card, notice) is kept, but only a window of
the most recent ones is mounted: laying out and painting cost grows with the number of widgets
on screen, not with the text. Older items are kept as plain data (a snapshot each) and mounted
again, a batch at a time, when the user scrolls to the top; the view stays where it was. While
the user is at the bottom the view follows new content and, as items arrive, the window is
trimmed back; once they scroll up it stays put and nothing above them is removed.

An item still streaming (an answer or reasoning not finished) is never unmounted; the window
waits for it. Adding is cheap and batched: items added in one go (a resumed session) are
mounted once, and only those inside the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from .notice import NoticeSnapshot
from .tool_card import ToolCallCard
from .transcript_item import ItemSnapshot
from .user_message import UserSnapshot

if TYPE_CHECKING:  # imported when first used: markdown-it and pygments are not first-screen
    from textual.layout import DockArrangeResult

    from ...agent.events import PlanEntry
    from .assistant_message import AssistantMessage
    from .plan_block import PlanBlock
    from .reasoning_block import ReasoningBlock

WINDOW = 50
BATCH = 10


class _Entry:
    """One item: its widget while it has one, else the snapshot to build it from."""

    __slots__ = ("snapshot", "widget")

    def __init__(self, widget: Widget | None = None, snapshot: ItemSnapshot | None = None) -> None:
        self.widget = widget
        self.snapshot = snapshot

    @property
    def settled(self) -> bool:
        # getattr, not isinstance(widget, TranscriptItem): a runtime Protocol check costs ~50 us,
        # and a resumed session runs this for each of thousands of entries.
        return getattr(self.widget, "settled", True)

    def materialize(self) -> Widget:
        if self.widget is None:
            assert self.snapshot is not None
            self.widget = self.snapshot.build()
            self.snapshot = None
        return self.widget

    def release(self) -> Widget | None:
        """Keep only the snapshot; returns the widget that was dropped."""
        widget = self.widget
        snapshot = getattr(widget, "snapshot", None)
        if snapshot is not None:
            self.snapshot = snapshot()
            self.widget = None
        return widget


class OlderHint(Static):
    """The first line while older items are not mounted."""

    DEFAULT_CSS = """
    OlderHint {
        height: 1;
        color: $text-muted;
        text-align: center;
        display: none;
    }
    OlderHint.-shown {
        display: block;
    }
    """


class Transcript(VerticalScroll):
    """The conversation. ``window`` items are mounted while following; ``batch_size`` more
    are mounted each time the user reaches the top."""

    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        padding: 0 1;
        /* The scrollbar's room is kept when it is hidden: text does not re-wrap when it comes
           and goes, so a transcript just at the edge cannot settle either way (wrapped under a
           scrollbar, or not) depending on how it got there. */
        scrollbar-gutter: stable;
    }
    """

    def __init__(
        self,
        *,
        window: int = WINDOW,
        batch_size: int = BATCH,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.window = window
        self.batch_size = batch_size
        self._entries: list[_Entry] = []
        self._first = 0  # entries[_first:_mounted_end] are mounted
        self._mounted_end = 0
        self._sync_scheduled = False
        self._following = True
        self._loading = False
        self._hint = OlderHint()

    # -- adding items -----------------------------------------------------------------------

    def add_user(self, text: str) -> None:
        """The user's message, shown as typed."""
        self._add(_Entry(snapshot=UserSnapshot(text)))

    def add_notice(self, text: str, level: str = "info") -> None:
        """A one-line notice: level is info, warning or error."""
        self._add(_Entry(snapshot=NoticeSnapshot(text, level)))

    def add_plan(self, entries: Sequence[PlanEntry]) -> PlanBlock:
        """An agent's plan, live: ``show`` a newer one in it, ``settle`` it when no more come."""
        from .plan_block import PlanBlock

        return cast(PlanBlock, self._add(_Entry(PlanBlock(entries))))

    def add_server_tool(self, name: str, detail: str) -> None:
        """A card for a tool the provider ran itself (nothing ran here)."""
        from .server_tool_card import ServerToolSnapshot

        self._add(_Entry(snapshot=ServerToolSnapshot(name, detail)))

    def add_item(self, snapshot: ItemSnapshot) -> None:
        """Any other finished item, kept as data until it is in the window."""
        self._add(_Entry(snapshot=snapshot))

    def start_assistant(self) -> AssistantMessage:
        """A new answer to stream into (``append``, then ``finish`` or ``discard``)."""
        from .assistant_message import AssistantMessage

        return cast(AssistantMessage, self._add(_Entry(AssistantMessage())))

    def add_answer(self, text: str) -> None:
        """A finished answer (a resumed session): kept as data until it is in the window."""
        from .assistant_message import AssistantSnapshot

        self._add(_Entry(snapshot=AssistantSnapshot.of_text(text)))

    def start_reasoning(self) -> ReasoningBlock:
        """A new reasoning block to stream into (``append``, then ``finish``)."""
        from .reasoning_block import ReasoningBlock

        return cast(ReasoningBlock, self._add(_Entry(ReasoningBlock())))

    def add_tool_card(self, position: int, call_id: str, name: str) -> ToolCallCard:
        """A card for a call the moment it is announced."""
        return cast(ToolCallCard, self._add(_Entry(ToolCallCard(position, call_id, name))))

    def _add(self, entry: _Entry) -> Widget | None:
        self._entries.append(entry)
        if not self._sync_scheduled:
            self._sync_scheduled = True
            self.call_later(self._sync)
        return entry.widget

    # -- what is mounted --------------------------------------------------------------------

    @property
    def item_count(self) -> int:
        """Items in the conversation, mounted or not."""
        return len(self._entries)

    @property
    def mounted_items(self) -> list[Widget]:
        """The item widgets now mounted, oldest first."""
        return [child for child in self.children if child is not self._hint]

    @property
    def first_mounted(self) -> int:
        """Index of the oldest mounted item (0 when everything is mounted)."""
        return self._first

    def compose(self) -> ComposeResult:
        yield self._hint

    def on_mount(self) -> None:
        self._sync()

    def _sync(self) -> None:
        """Mount what was added since the last call; trim the window while following."""
        self._sync_scheduled = False
        if not self.is_mounted:
            return
        entries = self._entries
        start = self._first
        if self._following:
            start = max(start, len(entries) - self.window)
            for index in range(self._first, start):
                if not entries[index].settled:
                    start = index
                    break
        dropped = [
            widget
            for entry in entries[self._first : min(start, self._mounted_end)]
            if (widget := entry.release()) is not None
        ]
        for entry in entries[self._mounted_end : start]:  # added and already out of the window
            entry.release()
        new = [entry.materialize() for entry in entries[max(start, self._mounted_end) :]]
        self._first = start
        self._mounted_end = len(entries)
        if dropped:
            self.remove_children(dropped)
        if new:
            self.mount_all(new)
        self._show_hint()

    def _show_hint(self) -> None:
        older = self._first
        self._hint.set_class(older > 0, "-shown")
        if older:
            plural = "" if older == 1 else "s"
            self._hint.update(f"↑ {older:,} earlier item{plural}: scroll up to show more")

    async def load_older(self) -> int:
        """Mount the next batch of older items above the oldest mounted one, keeping the view
        where it is. Returns how many were mounted."""
        if self._first == 0 or self._loading:
            return 0
        self._loading = True
        try:
            start = max(0, self._first - self.batch_size)
            reference = self._entries[self._first].widget
            offset = reference.virtual_region.y - self.scroll_y if reference else 0
            widgets = [entry.materialize() for entry in self._entries[start : self._first]]
            self._first = start
            self._following = False
            self._show_hint()
            await self.mount_all(widgets, after=self._hint)
            if reference is not None:
                self.call_after_refresh(self._keep_offset, reference, offset)
            return len(widgets)
        finally:
            self._loading = False

    def _keep_offset(self, reference: Widget, offset: float) -> None:
        if reference.is_attached:
            self.scroll_to(y=reference.virtual_region.y - offset, animate=False, immediate=True)

    # -- following the user's scrolling -----------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Back at the bottom, the window is trimmed when the next item arrives, not now: the
        # content may simply be shorter than the screen after loading older items.
        # Right after the view grows (the approval prompt closed), max_scroll_y still measures
        # the old height and Textual clamps scroll_y to 0: content that now fits is at its end.
        at_bottom = new_value >= self.max_scroll_y or not self._overflows(self.virtual_size)
        if at_bottom and not self._following:
            self._following = True
            # Not from inside this watcher: it may run within a step of a scroll animation
            # (Page Down reaching the end), and anchor() stops that animation, which Textual
            # 8.2.8's animator then fails to delete (a KeyError that ended the app).
            self.call_later(self._reengage)
        elif not at_bottom:
            self._following = False
        if new_value <= 0 < old_value:
            self.call_later(self.load_older)

    def _reengage(self) -> None:
        if self._following and self._overflows(self.virtual_size):
            self.anchor()  # re-engage: Textual 8.2.8 may not (Textualize/textual#6677)

    def watch_virtual_size(self, old_value: Size, new_value: Size) -> None:
        # Textual's anchor keeps the end in view as content grows, without a frame of lag. But
        # in 8.2.8 it drives scroll_y negative when the content is shorter than the view
        # (Textualize/textual#6652), so it is only set while the content overflows.
        if not self._overflows(new_value):
            if self.is_anchored:
                self.anchor(False)
            if self.scroll_y != 0:
                self.scroll_to(y=0, animate=False, immediate=True)
        elif self._following and (not self.is_anchored or self.scroll_y < self.max_scroll_y):
            # Following, yet left behind: a scroll key pressed at the very bottom released
            # Textual's anchor without moving, and nothing in 8.2.8 engages it again.
            self.anchor()

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        # While anchored, Textual 8.2.8's compositor scrolls to the arranged content's bottom
        # right after this call, unclamped: content that has just shrunk below the view (an
        # output closed) would be drawn for a frame scrolled to a negative offset, pushed down
        # under a scrollbar, where a click lands on another card (Textualize/textual#6652).
        # watch_virtual_size comes too late for that frame, so the anchor is let go here.
        result = super().arrange(size, optimal)
        view = self.container_size.height - self.scrollbar_size_horizontal
        fits = result.spatial_map.total_region.bottom <= view
        if self.is_anchored and fits:
            self.anchor(False)
            self.set_reactive(Transcript.scroll_y, 0)
            self.set_reactive(Transcript.scroll_target_y, 0)
        elif self._following and not fits and not self.is_anchored:
            # Content that starts to overflow while following: anchored now, so this very frame
            # shows its end. From watch_virtual_size the anchor came a frame late, and that
            # frame painted (so rendered, at ~8 ms per KB of markdown) the top of a long answer
            # that had arrived at once, scrolled past before anyone could see it.
            self.anchor()
        return result

    def _overflows(self, virtual_size: Size) -> bool:
        return virtual_size.height > self.scrollable_content_region.height

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.scroll_y <= 0:
            self.call_later(self.load_older)

    def action_scroll_home(self) -> None:
        super().action_scroll_home()
        self.call_later(self.load_older)
