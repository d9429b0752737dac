"""A stdio server's stderr: every line to the log file (redacted there), the last lines kept
for the notice that says why the server failed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections import deque
from collections.abc import Callable
from typing import TextIO

from ..logs import redact

TAIL_LINES = 12
MAX_LINE = 2000
_log = logging.getLogger("tui_agent.mcp")


class StderrLog:
    """A pipe whose write end goes to the server as its stderr; a thread reads the other end.

    ``on_closed`` runs on the event loop when every writer closed the pipe: the server (and any
    child that inherited it) has exited.
    """

    def __init__(self, server: str, on_closed: Callable[[], None] | None = None) -> None:
        self.server = server
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)
        self._lock = threading.Lock()
        read_fd, write_fd = os.pipe()
        self._reader = os.fdopen(read_fd, "rb", buffering=0)
        self.writer: TextIO | None = os.fdopen(write_fd, "w", encoding="utf-8")
        self._loop = asyncio.get_running_loop()
        self._on_closed = on_closed
        self._thread = threading.Thread(target=self._read, name=f"mcp-stderr-{server}", daemon=True)
        self._thread.start()

    def close_writer(self) -> None:
        """Our copy of the write end, once the server holds its own."""
        if self.writer is not None:
            with contextlib.suppress(OSError):
                self.writer.close()
            self.writer = None

    def settle(self, timeout: float) -> None:
        """Give the reader up to ``timeout`` seconds to reach the end of the pipe: a server that
        just crashed has often written its last words there, not yet read."""
        self._thread.join(timeout)

    def tail(self) -> str:
        """The last lines, redacted; empty when the server said nothing."""
        with self._lock:
            return redact("\n".join(self._tail))

    def _read(self) -> None:
        pending = b""
        try:
            while chunk := self._reader.read(65536):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    self._line(line)
                if len(pending) > MAX_LINE:
                    self._line(pending)
                    pending = b""
            if pending:
                self._line(pending)
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                self._reader.close()
            if self._on_closed is not None:
                with contextlib.suppress(RuntimeError):  # the loop is already closed
                    self._loop.call_soon_threadsafe(self._on_closed)

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip("\r")[:MAX_LINE]
        with self._lock:
            self._tail.append(text)
        # The log's formatter redacts every line it writes.
        _log.info("mcp server %s stderr: %s", self.server, text)
