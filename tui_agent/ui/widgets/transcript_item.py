"""What the transcript needs from the widgets it holds, so it can unmount old ones and rebuild
them later from plain data (see transcript.py)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual.widget import Widget


class ItemSnapshot(Protocol):
    """Plain data that rebuilds an item's widget."""

    def build(self) -> Widget:
        """A new widget showing the item as it is now."""
        ...


@runtime_checkable
class TranscriptItem(Protocol):
    """A widget the transcript may unmount and rebuild."""

    @property
    def settled(self) -> bool:
        """Nothing more will stream into it, so a rebuilt copy would show the same."""
        ...

    def snapshot(self) -> ItemSnapshot:
        """The data to rebuild it from."""
        ...
