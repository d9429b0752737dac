"""Typing never decides on a screen that asks something with one key (the session browser, the
fork picker): the screen asks ``KeyGuard.decides()`` before it acts on Enter, y or n.

The guard listens to every key of the app (``KeyClock``) before any widget gets it and keeps a
``PausedArming``: armed once the screen (or a question on it) has had attention for the arming
delay with no key, the delay starting over on every key; opened while the person types (the key
that opened it came within a pause of the key before), it first waits for a pause in typing. A
key decides only if the arming was armed when it was pressed; a mouse press decides if it is
armed then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from ..arming import PausedArming, key_clock, now


class KeyGuard:
    def __init__(self, screen: Screen[Any], changed: Callable[[], None] | None = None) -> None:
        self.screen = screen
        self.arming = PausedArming()
        self._ok = False  # the last key (or mouse press) may decide
        self._changed = changed
        self._unlisten: Callable[[], None] | None = None

    def mount(self) -> None:
        self._unlisten = key_clock(self.screen.app).listen(self._key)

    def unmount(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    def arm(self) -> None:
        """Attention starts (the screen shows, a question opens or ends): arm from now."""
        self.arming.start(now(), typing=key_clock(self.screen.app).typing_before_last())
        self._ok = False
        self._report()

    def stop(self) -> None:
        self.arming.stop()
        self._ok = False

    def clicked(self) -> None:
        """A mouse press: it may decide if the screen is armed now."""
        self._ok = self.arming.armed(now())

    def decides(self) -> bool:
        """May the key (or click) being handled decide?"""
        return self._ok

    @property
    def waiting(self) -> bool:
        """Waiting for a pause in typing."""
        return self.arming.waiting

    def armed(self) -> bool:
        return self.arming.armed(now())

    def _key(self, at: float) -> None:
        self._ok = self.screen.app.screen is self.screen and self.arming.key(at)
        self._report()

    def _report(self) -> None:
        if self._changed is not None:
            self._changed()
