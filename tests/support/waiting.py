"""Waiting in a UI test for what the app does in its own time (a worker, a stream, a layout).

A bounded poll, never a fixed pause: it returns as soon as the condition holds and fails, with
the screen as shown, only when it never does. Time that decides something (arming, the pause in
typing) is not waited for here: a test that needs it owns the app's clock (``clock.py``).
``wait_for`` waits under Textual's pilot; ``poll`` waits, blocking, for what another process does.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
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
