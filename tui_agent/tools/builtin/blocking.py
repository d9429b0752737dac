"""Run a file tool's blocking work in a thread and turn its failures into error results."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..sandbox import SandboxError
from ..spec import ToolFailure, ToolOutput


async def run_blocking(work: Callable[[], ToolOutput]) -> ToolOutput:
    """``work()`` in a worker thread, so file I/O never stalls the UI's event loop.

    A thread cannot be stopped: on cancellation we wait for it to finish before re-raising, so
    that nothing changes on disk after the caller has seen the call end.
    """
    future = asyncio.ensure_future(asyncio.to_thread(work))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        if not future.cancelled():
            future.exception()  # retrieved, so asyncio does not log it as lost
        raise
    except (SandboxError, ToolFailure) as exc:
        return ToolOutput(str(exc), is_error=True)
    except OSError as exc:
        return ToolOutput(f"the operation failed: {exc.strerror or type(exc).__name__}", True)
