"""Watching the processes a test's commands start.

``marked`` (the ``marker`` fixture) puts a variable in the environment the commands
inherit, so scanning /proc/*/environ finds every process they started, whichever group it
ended up in.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


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
