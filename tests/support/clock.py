"""A clock the test owns: the app's time moves only when the test says so.

Give it to the app (``TuiAgentApp(..., clock=ManualClock())``, or ``app.clock`` /
``app.key_clock.clock`` in a test app) and move it with ``advance`` or ``set``: the timers the app
started on it (the arming's, the approval prompt's poll, a dialog's) fire at their instants, in
order, as time passes over them. A key gets the time that was current when Textual made its event,
so a key pressed after ``advance(0.39)`` is a key at 0.39 s, however long the machine took.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual import _time

from tui_agent.ui.arming import Clock, TimerOwner


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


def _alive(owner: Any) -> bool:
    """A widget's timers end with it (as Textual's do)."""
    attached = getattr(owner, "is_attached", True)
    return bool(attached) and getattr(owner, "_closed", False) is not True
