"""Keys typed for something else never decide: when the person last typed, and arming.

A person typing a message does not look at what appears on the screen, and a key that arrives
while they type, or right after focus moved, was meant for where focus used to be. Two small
pieces, free of widgets, hold the rule for every place that decides something with one key:

- ``Clock``: the app's time, one for the app (``TuiAgentApp(clock=...)``): every rule below, and
  the timers that decide something, read it and never the system clock, so a test can own time.
- ``KeyClock``: when a key was last pressed anywhere in the app, and who wants to hear of each
  key before it is delivered. The app feeds it from ``on_event``; ``key_clock`` finds it, and
  ``clock`` finds the app's ``Clock`` through it.
- ``Arming``: a key decides only once the thing asking has had the person's attention for
  ``delay`` seconds; a key pressed before that restarts the delay and decides nothing.
- ``PausedArming``: the same for a question that has focus at once (the session browser's): when
  it opens while the person types, it first waits for a pause in typing, then arms.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, Protocol

PAUSE_S = 1.0  # no key for this long: the person is not typing
ARMING_S = 0.4


class Stoppable(Protocol):
    def stop(self) -> None: ...


class TimerOwner(Protocol):
    """A widget, screen or app: what can own a Textual timer."""

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Any: ...

    def set_interval(self, interval: float, callback: Callable[[], object]) -> Any: ...


class Clock:
    """The app's time in seconds: the system's monotonic clock (the one Textual stamps events
    with), and timers on it. A test gives the app its own, which moves only when told."""

    def now(self) -> float:
        return time.monotonic()

    def of_event(self, stamped: float) -> float:
        """An event's ``time`` (stamped by Textual when it was made) in this clock's time."""
        return stamped

    def after(self, owner: TimerOwner, delay: float, callback: Callable[[], object]) -> Stoppable:
        """Call ``callback`` once, ``delay`` seconds from now (by this clock), while ``owner``
        lives."""
        timer: Stoppable = owner.set_timer(max(delay, 0.001), callback)
        return timer

    def every(
        self, owner: TimerOwner, interval: float, callback: Callable[[], object]
    ) -> Stoppable:
        """Call ``callback`` every ``interval`` seconds (by this clock) while ``owner`` lives."""
        timer: Stoppable = owner.set_interval(interval, callback)
        return timer


class KeyClock:
    """When a key was last pressed anywhere in the app; listeners hear of each key first."""

    def __init__(self, pause: float = PAUSE_S, clock: Clock | None = None) -> None:
        self.pause = pause
        self.clock = Clock() if clock is None else clock
        self.last = -math.inf
        self.before = -math.inf  # the key before the last one
        self.handled = -math.inf  # when the app got round to the last key
        self._listeners: list[Callable[[float], None]] = []

    def pressed(self, at: float | None = None, handled: float | None = None) -> None:
        """A key was pressed at ``at`` (when the terminal's key became an event) and reached the
        app at ``handled`` (later when the app is busy; default ``at``), called before the key
        is delivered to any widget."""
        at = self.clock.now() if at is None else at
        self.before, self.last = self.last, at
        self.handled = at if handled is None else max(at, handled)
        for listener in list(self._listeners):
            listener(at)

    def typing(self, at: float | None = None) -> bool:
        """True while the last key is more recent than the pause: pressed within it, or handled
        within it (a busy app that handles keys late may have more of them waiting, so time
        counts from when it caught up, never from before)."""
        at = self.clock.now() if at is None else at
        return at - max(self.last, self.handled) < self.pause

    def typing_before_last(self, at: float | None = None) -> bool:
        """True while the person types and the last key came within the pause of the one before
        it: the key that opened something (Ctrl+O, d) was part of typing, not after a pause."""
        return self.typing(at) and self.last - self.before < self.pause

    def key_event(self, stamped: float) -> None:
        """A key event from the terminal (``event.time``, Textual's stamp), now reaching the app."""
        self.pressed(self.clock.of_event(stamped), self.clock.now())

    def listen(self, listener: Callable[[float], None]) -> Callable[[], None]:
        """Call ``listener(time)`` on every key; returns the function that stops it."""
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop


def key_clock(app: object) -> KeyClock:
    """The app's KeyClock (one is attached, never fed, to an app that has none).

    ``app`` is any Textual app: the live one (a ``Shell``) has its own, and a widget or screen
    shown in a test's app of its own gets one here."""
    clock = getattr(app, "key_clock", None)
    if not isinstance(clock, KeyClock):
        clock = KeyClock()
        setattr(app, "key_clock", clock)  # noqa: B010  (any app: no attribute to type)
    return clock


def clock(app: object) -> Clock:
    """The app's Clock (the one its KeyClock reads)."""
    return key_clock(app).clock


class Arming:
    """Armed once attention has lasted ``delay`` seconds with no key pressed during it.

    ``start`` when attention begins (focus arrived, or moved within), ``stop`` when it ends;
    ``key`` for each key while attended: it says whether that key may decide, and restarts the
    delay when it may not. Once armed, it stays armed until ``stop`` or ``start``.
    """

    def __init__(self, delay: float = ARMING_S) -> None:
        self.delay = delay
        self._due: float | None = None
        self._armed = False

    @property
    def due(self) -> float | None:
        """When it arms if no key comes first (None when stopped)."""
        return self._due

    @property
    def running(self) -> bool:
        """True between ``start`` and ``stop``."""
        return self._due is not None

    def start(self, at: float) -> None:
        self._due = at + self.delay
        self._armed = False

    def stop(self) -> None:
        self._due = None
        self._armed = False

    def armed(self, at: float) -> bool:
        if self._due is not None and not self._armed and at >= self._due:
            self._armed = True
        return self._armed

    def key(self, at: float) -> bool:
        """A key pressed at ``at``: True when it may decide; else the delay starts over from it.

        A key pressed before the arming was due decides nothing, even when a busy app handles
        it only after that moment (and the arming showed as done meanwhile): it was pressed
        during the delay, so the delay starts over from it."""
        if self._due is None:
            return False
        if at < self._due:
            self._armed = False
            self._due = max(self._due, at + self.delay)
            return False
        return self.armed(at)


class PausedArming(Arming):
    """Arming for a question that has focus as soon as it opens.

    Started while the person types (``typing``), it first waits for a pause of ``pause``
    seconds with no key, and arms ``delay`` seconds after it: a key during the wait starts the
    wait over. Started when nobody types, it is an ``Arming``. Either way a key decides only
    once armed, and a key before that decides nothing.
    """

    def __init__(self, delay: float = ARMING_S, pause: float = PAUSE_S) -> None:
        super().__init__(delay)
        self.pause = pause
        self.waiting = False  # for a pause in typing
        self._last = -math.inf

    def start(self, at: float, typing: bool = False) -> None:
        super().start(at)
        self.waiting = typing
        self._last = at
        if typing:
            self._due = at + self.pause + self.delay

    def stop(self) -> None:
        super().stop()
        self.waiting = False

    def _paused(self, at: float) -> None:
        if self.waiting and at - self._last >= self.pause:
            self.waiting = False  # arms at _last + pause + delay, as set by the last key

    def armed(self, at: float) -> bool:
        self._paused(at)
        return super().armed(at)

    def key(self, at: float) -> bool:
        if self._due is None:
            return False
        self._paused(at)
        if self.waiting:
            self._last = at
            self._due = at + self.pause + self.delay
            return False
        self._last = at
        return super().key(at)
