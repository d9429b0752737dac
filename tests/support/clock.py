"""Clocks the test owns: ``ManualClock``, whose time moves only when the test says so, and
``LeapClock``, real time the test may move ahead in leaps.

Give it to the app (``TuiAgentApp(..., clock=ManualClock())``, or ``app.clock`` /
``app.key_clock.clock`` in a test app) and move it with ``advance`` or ``set``: the timers the app
started on it (the arming's, the approval prompt's poll, a dialog's) fire at their instants, in
order, as time passes over them. A key gets the time that was current when Textual made its event,
so a key pressed after ``advance(0.39)`` is a key at 0.39 s, however long the machine took.

``LeapClock`` is for a test that is not about time but has to get past it (the typing pause and
the arming before an approval prompt takes a key): time runs as the system's, and ``leap(s)``
moves it ``s`` seconds ahead at once, firing what fell due. To the app a leap is the machine
stalling for ``s`` seconds, which it must handle anyway, so a test that holds whatever the
delays still holds; it only stops waiting for them. The UI test apps get one by default
(``ui_app_helpers.make_app``) and ``armed_prompt`` leaps through the pause and the arming.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual import _time
from textual.pilot import Pilot

from tui_agent.ui.arming import Clock, Stoppable, TimerOwner
from tui_agent.ui.arming import clock as clock_of

from .waiting import wait_for


@dataclass(order=True)
class _Timer:
    due: float
    seq: int
    interval: float | None = field(compare=False)
    owner: Any = field(compare=False)
    callback: Callable[[], object] = field(compare=False)
    stopped: bool = field(default=False, compare=False)

    def stop(self) -> None:
        self.stopped = True


class ManualClock(Clock):
    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._stamps: list[float] = []  # Textual's time when the clock was set ...
        self._times: list[float] = []  # ... to this time
        self._timers: list[_Timer] = []
        self._seq = 0
        self._mark()

    def now(self) -> float:
        return self._now

    def of_event(self, stamped: float) -> float:
        i = bisect.bisect_right(self._stamps, stamped) - 1
        return self._times[max(i, 0)]

    def after(self, owner: TimerOwner, delay: float, callback: Callable[[], object]) -> _Timer:
        return self._add(owner, max(delay, 0.0), None, callback)

    def every(self, owner: TimerOwner, interval: float, callback: Callable[[], object]) -> _Timer:
        return self._add(owner, interval, interval, callback)

    def advance(self, seconds: float) -> None:
        self.set(self._now + seconds)

    def set(self, at: float) -> None:
        """Move time forward to ``at``, firing each timer due on the way at its instant."""
        assert at >= self._now, "time never goes back"
        while True:
            live = [t for t in self._timers if not t.stopped and _alive(t.owner)]
            self._timers = live
            due = [t for t in live if t.due <= at]
            if not due:
                break
            timer = min(due)
            self._now = max(self._now, timer.due)
            self._mark()
            if timer.interval is None:
                timer.stopped = True
            else:
                timer.due += timer.interval
            timer.callback()
        self._now = at
        self._mark()

    def _add(
        self, owner: Any, delay: float, interval: float | None, callback: Callable[[], object]
    ) -> _Timer:
        self._seq += 1
        timer = _Timer(self._now + delay, self._seq, interval, owner, callback)
        self._timers.append(timer)
        return timer

    def _mark(self) -> None:
        self._stamps.append(_time.get_time())
        self._times.append(self._now)


class LeapClock(Clock):
    def __init__(self) -> None:
        self._offset = 0.0
        self._stamps: list[float] = [_time.get_time()]  # Textual's time of each leap ...
        self._offsets: list[float] = [0.0]  # ... and the offset from then on
        self._early: list[_Early] = []
        self._intervals: list[tuple[Any, Stoppable, Callable[[], object]]] = []

    def now(self) -> float:
        return time.monotonic() + self._offset

    def of_event(self, stamped: float) -> float:
        """A key made before a leap keeps the time it had (it was pressed before the stall)."""
        i = bisect.bisect_right(self._stamps, stamped) - 1
        return stamped + self._offsets[max(i, 0)]

    def after(self, owner: TimerOwner, delay: float, callback: Callable[[], object]) -> Stoppable:
        early = _Early(self.now() + delay, owner, callback)
        early.timer = owner.set_timer(max(delay, 0.001), early.fire)
        self._early = [e for e in self._early if not e.done] + [early]
        return early

    def every(
        self, owner: TimerOwner, interval: float, callback: Callable[[], object]
    ) -> Stoppable:
        timer: Stoppable = owner.set_interval(interval, callback)
        self._intervals = [i for i in self._intervals if _alive(i[0]) and not _stopped(i[1])]
        self._intervals.append((owner, timer, callback))
        return timer

    def leap(self, seconds: float) -> None:
        """Move time ``seconds`` ahead at once: what fell due fires now, in order, and each
        interval ticks once (a poll sees the new time at once, not at its next real tick)."""
        assert seconds >= 0, "time never goes back"
        self._offset += seconds
        self._stamps.append(_time.get_time())
        self._offsets.append(self._offset)
        now = self.now()
        for early in sorted(self._early, key=lambda e: e.due):
            if early.due <= now and _alive(early.owner):
                early.fire()
        for owner, timer, callback in list(self._intervals):
            if _alive(owner) and not _stopped(timer):
                callback()


@dataclass
class _Early:
    """A timer on the real clock that a leap may fire early."""

    due: float
    owner: Any
    callback: Callable[[], object]
    timer: Any = None
    done: bool = False

    def fire(self) -> None:
        if not self.done:
            self.stop()
            self.callback()

    def stop(self) -> None:
        self.done = True
        if self.timer is not None:
            self.timer.stop()


def _stopped(timer: Any) -> bool:
    """A Textual timer that ticks no more: stopped (its task dropped) or ended with its owner."""
    task = getattr(timer, "_task", None)
    return task is None or task.done()


def _alive(owner: Any) -> bool:
    """A widget's timers end with it (as Textual's do)."""
    attached = getattr(owner, "is_attached", True)
    return bool(attached) and getattr(owner, "_closed", False) is not True


async def leap_until(
    pilot: Pilot[None], condition: Callable[[], object], what: str, step: float = 0.5
) -> None:
    """Wait for ``condition``, moving an app's LeapClock ``step`` seconds ahead at each look:
    the typing pause and the arming pass as if the machine had stalled, without the real wait.
    (On any other clock this is ``wait_for``.)"""
    app_clock = clock_of(pilot.app)

    def check() -> object:
        if done := condition():
            return done
        if isinstance(app_clock, LeapClock):
            app_clock.leap(step)
        return False

    await wait_for(pilot, check, what)
