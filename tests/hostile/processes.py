"""Watching the processes a test's commands start, and the event loop while they run.

``marked`` (the ``marker`` fixture) puts a variable in the environment the commands
inherit, so scanning /proc/*/environ finds every process they started, whichever group it
ended up in; ``LoopWatch`` measures how long the event loop went without serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import uuid
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")
# The event loop must keep serving while a command floods or is killed: the longest gap between
# two 10 ms ticks, with a generous margin for 2 shared, busy cores.
MAX_LOOP_LAG_S = 0.5


def marked(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A variable only this test's commands (and everything they start) carry. Should a test
    fail with processes left, they are killed here, by pid, so nothing outlives the test."""
    name = f"HOSTILE_MARK_{uuid.uuid4().hex}"
    monkeypatch.setenv(name, "1")
    yield name
    for _ in range(5):
        left = running_with(name)
        if not left:
            break
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


def running_with(marker: str) -> list[int]:
    """Live processes (not zombies) whose environment holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if marker.encode() in environ and stat[stat.rindex(")") + 2] not in "ZX":
            found.append(int(entry))
    return found


class LoopWatch:
    """Ticks every 10 ms and records the longest gap: how long the loop was not serving."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.ticks = 0

    async def run(self) -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.01)
            now = time.monotonic()
            self.worst = max(self.worst, now - last)
            self.ticks += 1
            last = now


async def watched(work: Awaitable[T]) -> tuple[T, LoopWatch]:
    watch = LoopWatch()
    ticker = asyncio.create_task(watch.run())
    try:
        return await work, watch
    finally:
        ticker.cancel()
