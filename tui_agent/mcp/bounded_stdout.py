"""A stdio server's stdout, read one bounded line at a time.

The SDK joins what it reads until a newline with no limit (48 MB on one line took 49 s and
hundreds of MB before the server even started), and a line its parser rejects (a result nested
200,000 deep) is only logged with a traceback, so the call waiting for it hangs until its
timeout. Between the pipe and the SDK, this stream:

- hands over whole lines only (the SDK's own joining stays linear);
- keeps at most ``max_bytes`` of a line: the rest of a longer one is read and dropped;
- checks the nesting of a line that has enough brackets to be deep;
- puts, in place of a line refused, a JSON-RPC error answer to the request it answered (its id
  is read from the line's start), with the cause: the call fails at once and says why. A refused
  line that answers nothing (a notification) is dropped, with a log line.
"""

from __future__ import annotations

import json
import logging
import re
from collections import deque
from collections.abc import Callable
from typing import Any

from anyio.abc import ByteReceiveStream

from .limits import REFUSED_CODE

HEAD_BYTES = 4096
READ_BYTES = 1 << 20
_ID = re.compile(
    rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,256}")'
)
_ID_LAST = re.compile(
    rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,256}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$'
)
_REQUEST = re.compile(rb'"method"\s*:')
_log = logging.getLogger("tui_agent.mcp")


def too_deep(line: bytes, limit: int) -> bool:
    """Whether the JSON in ``line`` nests more than ``limit`` arrays and objects (False when it
    is not JSON at all: the SDK reports that itself)."""
    if line.count(b"[") + line.count(b"{") <= limit:
        return False
    try:
        value = json.loads(line)
    except RecursionError:
        return True
    except ValueError:
        return False
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        node, depth = level.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, dict | list):
            level += [(child, depth + 1) for child in children if isinstance(child, dict | list)]
    return False


def refusal(head: bytes, tail: bytes, why: str) -> bytes | None:
    """The error answer to put in place of a refused line (its first and last bytes given), or
        None when the line answers no request of ours (a notification, or a request of the
        server's). The id is the first key (Python's SDK), or the last (TypeScript's), or the last
    before "jsonrpc"."""
    found = _ID.match(head) or _ID_LAST.search(tail)
    if found is None or _REQUEST.search(head[:512]):
        return None
    ident = json.loads(found.group(1))
    answer = {"jsonrpc": "2.0", "id": ident, "error": {"code": REFUSED_CODE, "message": why}}
    return json.dumps(answer).encode() + b"\n"


class BoundedLines(ByteReceiveStream):
    """``inner`` (a process's stdout) as whole lines of at most ``max_bytes``; ``on_refused``
    gets the cause of each line refused."""

    def __init__(
        self,
        inner: ByteReceiveStream,
        max_bytes: int,
        max_depth: int,
        on_refused: Callable[[str], None] | None = None,
    ) -> None:
        self._inner = inner
        self._max_bytes = max_bytes
        self._max_depth = max_depth
        self._on_refused = on_refused
        self._line = bytearray()
        self._skipped: int | None = None  # bytes dropped of the line being skipped
        self._head = b""
        self._tail = b""
        self._out: deque[bytes] = deque()

    async def receive(self, max_bytes: int = 65536) -> bytes:
        while not self._out:
            chunk = await self._inner.receive(READ_BYTES)
            self._feed(chunk)
        return self._out.popleft()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _feed(self, chunk: bytes) -> None:
        start = 0
        while start <= len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if self._skipped is not None:
                self._skipped += len(piece)
                self._tail = (self._tail + piece[-HEAD_BYTES:])[-HEAD_BYTES:]
            elif len(self._line) + len(piece) > self._max_bytes:
                self._head = bytes(self._line[:HEAD_BYTES]) + piece[:HEAD_BYTES]
                self._tail = (bytes(self._line[-HEAD_BYTES:]) + piece[-HEAD_BYTES:])[-HEAD_BYTES:]
                self._skipped = len(self._line) + len(piece)
                self._line = bytearray()
            else:
                self._line += piece
            if end < 0:
                return
            self._end_line()
            start = end + 1

    def _end_line(self) -> None:
        if self._skipped is not None:
            size, head, tail = self._skipped, self._head, self._tail
            self._skipped, self._head, self._tail = None, b"", b""
            self._refuse(
                head,
                tail,
                f"the server's message was {size:,} bytes, more than the {self._max_bytes:,} "
                "allowed (setting mcp_max_message_bytes); it was dropped unread",
            )
            return
        line = bytes(self._line)
        self._line = bytearray()
        if too_deep(line, self._max_depth):
            self._refuse(
                line[:HEAD_BYTES],
                line[-HEAD_BYTES:],
                f"the server's message is nested more than {self._max_depth} levels deep; it "
                "was dropped unread",
            )
            return
        self._out.append(line + b"\n")

    def _refuse(self, head: bytes, tail: bytes, why: str) -> None:
        if self._on_refused is not None:
            self._on_refused(why)
        answer = refusal(head, tail, why)
        if answer is None:
            _log.warning("mcp: %s (it answered no request)", why)
        else:
            self._out.append(answer)


def bound_stdout(
    process: Any, max_bytes: int, max_depth: int, on_refused: Callable[[str], None] | None
) -> None:
    """Put a BoundedLines in place of ``process``'s stdout (an anyio asyncio process)."""
    inner = getattr(process, "_stdout", None)
    if inner is not None:
        process._stdout = BoundedLines(inner, max_bytes, max_depth, on_refused)
