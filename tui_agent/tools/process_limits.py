"""How many tool processes run at once, and the last word on them when tui-agent ends.

- At most ``MAX_TOOL_PROCESSES`` (the number of cores) tool programs run at a time, per event
  loop; the others wait for a slot before they start (300 auto-approved searches never start 300
  processes at once).
- Every process group a tool started is known until it was ended. When the process exits
  (normally: ``atexit``; on SIGTERM or SIGHUP: ``install_exit_signals``) every group still known
  is killed, so no tool process outlives the app or ``tui-agent run``.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import weakref
from collections.abc import AsyncIterator
from types import FrameType

MAX_TOOL_PROCESSES = max(1, os.cpu_count() or 1)

_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)
_live: set[int] = set()  # process group ids of tool programs that may still run


@contextlib.asynccontextmanager
async def process_slot() -> AsyncIterator[None]:
    """Hold one of the ``MAX_TOOL_PROCESSES`` slots of this event loop while a program runs."""
    loop = asyncio.get_running_loop()
    slots = _slots.get(loop)
    if slots is None:
        slots = _slots[loop] = asyncio.Semaphore(MAX_TOOL_PROCESSES)
    async with slots:
        yield


def started(pgid: int) -> None:
    _live.add(pgid)


def ended(pgid: int) -> None:
    _live.discard(pgid)


def kill_all() -> None:
    """SIGKILL every tool process group still known (safe in a signal handler or at exit)."""
    for pgid in list(_live):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        _live.discard(pgid)


atexit.register(kill_all)


def _die(signum: int, frame: FrameType | None) -> None:
    """Kill the tools' groups, then end as the signal would have ended us."""
    kill_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install_exit_signals(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGHUP)) -> None:
    """On these signals, kill every tool process before the process ends (the app's default)."""
    for signum in signals:
        with contextlib.suppress(ValueError, OSError):  # not the main thread, or no such signal
            signal.signal(signum, _die)
