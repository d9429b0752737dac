"""Plays a ReplayScript at its recorded pace divided by a speed, with pause, step and speed keys.

``events()`` yields each step's event after its delay / speed (speed 0: at once). ``pause()``
holds the next event back until ``resume()``; ``step()`` pauses and lets exactly one event
through; ``linger(seconds)`` adds recorded seconds before the next event (or the end), e.g.
to keep a replayed prompt on screen a moment; ``faster()`` / ``slower()`` double or halve the
speed, and apply to a pause already under way. The clock is injectable, so tests need not sleep.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Protocol

from .script import ReplayEvent, ReplayScript

MIN_SPEED = 1 / 64
MAX_SPEED = 64.0


class Clock(Protocol):
    def now(self) -> float: ...

    async def wait(self, wake: asyncio.Event, timeout: float | None) -> bool:
        """Until ``wake`` is set (True) or ``timeout`` seconds passed (False)."""
        ...


class RealClock:
    def now(self) -> float:
        return time.monotonic()

    async def wait(self, wake: asyncio.Event, timeout: float | None) -> bool:
        try:
            await asyncio.wait_for(wake.wait(), timeout)
        except TimeoutError:
            return False
        return True


def speed_label(speed: float) -> str:
    """``x2``, ``x0.5``, ``instant``."""
    if speed == 0:
        return "instant"
    return f"x{speed:g}"


class ReplayPlayer:
    def __init__(self, script: ReplayScript, speed: float = 1.0, clock: Clock | None = None):
        if speed < 0:
            raise ValueError("the speed cannot be negative")
        self.script = script
        self.speed = speed
        self.clock: Clock = clock if clock is not None else RealClock()
        self.paused = False
        self.position = 0  # events emitted so far
        self.finished = False
        self._steps = 0  # single steps granted while paused
        self._linger = 0.0  # recorded seconds added before the next event
        self._wake = asyncio.Event()

    @property
    def total(self) -> int:
        return len(self.script)

    def describe(self) -> str:
        """One status line: where the replay is, its speed and whether it is paused."""
        state = "finished" if self.finished else "paused" if self.paused else "playing"
        return f"event {self.position} of {self.total} · speed {speed_label(self.speed)} · {state}"

    # -- the keys -------------------------------------------------------------------------

    def pause(self) -> None:
        self.paused = True
        self._wake.set()

    def resume(self) -> None:
        self.paused = False
        self._steps = 0
        self._wake.set()

    def toggle(self) -> None:
        if self.paused:
            self.resume()
        else:
            self.pause()

    def step(self) -> None:
        """Let exactly one more event through, then stay paused."""
        self.paused = True
        self._steps += 1
        self._wake.set()

    def faster(self) -> None:
        if self.speed > 0:
            self.speed = min(MAX_SPEED, self.speed * 2)
        self._wake.set()

    def slower(self) -> None:
        self.speed = MAX_SPEED if self.speed == 0 else max(MIN_SPEED, self.speed / 2)
        self._wake.set()

    # -- playing --------------------------------------------------------------------------

    def linger(self, seconds: float) -> None:
        """Hold the next event (or the end) back ``seconds`` more, at the speed then in force."""
        self._linger += max(0.0, seconds)

    async def events(self) -> AsyncIterator[ReplayEvent]:
        for step in self.script.steps:
            await self._wait(step.delay + self._take_linger())
            self.position += 1
            yield step.event
        if self._linger > 0:
            await self._wait(self._take_linger())
        self.finished = True

    def _take_linger(self) -> float:
        linger, self._linger = self._linger, 0.0
        return linger

    async def _wait(self, delay: float) -> None:
        """``delay`` recorded seconds, at whatever speed holds while they pass."""
        remaining = delay
        while True:
            if self.paused:
                if self._steps > 0:
                    self._steps -= 1
                    return
                self._wake.clear()
                await self.clock.wait(self._wake, None)
                continue
            speed = self.speed
            if speed == 0 or remaining <= 0:
                return
            self._wake.clear()
            started = self.clock.now()
            woken = await self.clock.wait(self._wake, remaining / speed)
            if not woken:
                return
            remaining -= (self.clock.now() - started) * speed
