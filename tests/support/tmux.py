"""What the tmux end-to-end tests share: waiting for text on the pane, in real time."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_shown(screen: Callable[[], str], text: str, timeout: float = 20.0) -> str:
    """The pane (``screen()``) once it shows ``text``; fail with the pane after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while text not in (shown := screen()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never shown:\n{shown}")
        time.sleep(0.1)
    return shown
