"""Waiting in a UI test for what the app does in its own time (a worker, a stream, a layout).

A bounded poll, never a fixed pause: it returns as soon as the condition holds and fails, with
the screen as shown, only when it never does. Time that decides something (arming, the pause in
typing) is not waited for here: a test that needs it owns the app's clock (``clock.py``).
``wait_for`` waits under Textual's pilot; ``poll`` waits, blocking, for what another process does;
``ends`` bounds work that must end (a call stopped, a server shut down) against a hang.

A test never asserts how long something took: a shared machine may take any time. It asserts the
outcome (the result says "timed out", the process group is gone, nothing more arrived) and bounds
the wait for it generously, so what is broken fails (work that waits out a 30 s sleep is still
running at the bound) and what is slow passes. Only a lower bound, that something waited at least
its timeout, may be checked against the clock: a slow machine makes it longer, never shorter.
Speed itself is measured by the benchmarks in bench/.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from textual.pilot import Pilot

T = TypeVar("T")

WAIT_S = 15.0  # generous: the machine is shared; a hang fails the test, never a slow pass


async def wait_for(
    pilot: Pilot[None], condition: Callable[[], object], what: str, timeout: float = WAIT_S
) -> None:
    """Poll ``condition`` until it is true; fail naming ``what`` after ``timeout`` seconds."""
    from ..approval_prompt_app import screen_text

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)
    await pilot.pause()  # let the screen catch up with the state that was awaited


def poll(
    check: Callable[[], T],
    what: str,
    timeout: float = WAIT_S,
    ignoring: tuple[type[Exception], ...] = (),
) -> T:
    """``check()`` once it is true (an exception of ``ignoring`` counts as not yet), polled every
    50 ms; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(*ignoring):
            if found := check():
                return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def ends(work: Awaitable[T], what: str, timeout: float = WAIT_S) -> T:
    """``await work``; fail naming ``what`` if it has not ended after ``timeout`` seconds (it is
    cancelled then). A bound against a hang, not a measure: what is awaited should take far less,
    and when it is broken (it waits out what it should have stopped) far more."""
    try:
        return await asyncio.wait_for(work, timeout)
    except TimeoutError:
        raise AssertionError(f"{what} did not end within {timeout:g} s") from None
