"""Every stdio server's process group, known from its start until it was killed.

The SDK starts each server in a new session (its own process group) and kills the group only
when the server outlives the grace period after its stdin closed; a server that exits at once
leaves its children running. So each group is killed when its server's transport is left, and
any left at interpreter exit are killed then. The SDK's spawn function is wrapped to learn the
process (there is no public hook); the wrapper only records, it changes nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
from contextvars import ContextVar
from typing import Any

import mcp.client.stdio as stdio_module

_spawned: ContextVar[list[Any] | None] = ContextVar("tui_agent_mcp_spawned", default=None)
_groups: set[int] = set()


def _install() -> None:
    original = stdio_module._create_platform_compatible_process
    if getattr(original, "_records_spawn", False):
        return

    async def recording(*args: Any, **kwargs: Any) -> Any:
        process = await original(*args, **kwargs)
        box = _spawned.get()
        if box is not None:
            box.append(process)
        if isinstance(getattr(process, "pid", None), int):
            _groups.add(process.pid)
        return process

    recording._records_spawn = True  # type: ignore[attr-defined]
    stdio_module._create_platform_compatible_process = recording
    atexit.register(kill_all)


def recorder() -> list[Any]:
    """A list that receives the process spawned next in this task."""
    _install()
    box: list[Any] = []
    _spawned.set(box)
    return box


def kill_group(pid: int) -> None:
    """SIGKILL the server's process group (it leads its own session: pgid == pid)."""
    _groups.discard(pid)
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(pid, signal.SIGKILL)


def kill_all() -> None:
    for pid in list(_groups):
        kill_group(pid)
