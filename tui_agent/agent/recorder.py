"""Where the loop writes its records: a session writer, or nowhere (tests, replays)."""

from __future__ import annotations

from typing import Any, Protocol

from ..conversation import ImagePart
from ..images.records import keep_images
from ..session.records import Record


class RecordWriter(Protocol):
    @property
    def degraded(self) -> str | None:
        """Set when the disk refused: what failed and what it means (see session/writer.py)."""

    def append(self, record: Any, *, sync: bool | None = None) -> Any: ...


class SessionRecorder:
    def __init__(self, writer: RecordWriter | None = None) -> None:
        self.writer = writer
        # A writer that could not write from the start was reported when the session was opened.
        self._told = self.warning

    def append(self, record: Record, *, sync: bool | None = None) -> None:
        if self.writer is not None:
            self.writer.append(record, sync=sync)

    def keep_images(self, images: tuple[ImagePart, ...]) -> str | None:
        """Save a record's images in the data folder's store, when the session is written; a
        warning when the disk refused one."""
        if not images or self.writer is None:
            return None
        return keep_images(images)

    @property
    def warning(self) -> str | None:
        """Set when the session can no longer be written and lives in memory only."""
        return (self.writer.degraded or None) if self.writer is not None else None

    def take_warning(self) -> str | None:
        """The warning the user has not been told yet (once: when the disk started refusing)."""
        warning = self.warning
        if warning is None or warning == self._told:
            return None
        self._told = warning
        return warning
