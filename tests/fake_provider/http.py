"""Just enough HTTP/1.1, by hand, so that every byte on the socket is ours to withhold or cut."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit

MAX_HEAD = 64 * 1024
MAX_BODY = 256 * 1024 * 1024
PIECE = 64 * 1024


class BadRequest(Exception):
    """The bytes are not an HTTP/1.1 request we can read."""


class ClientGone(ConnectionError):
    """The client closed its socket part-way through a request: a process that exited (or was
    killed) with a request in flight, such as a background model-information question. That
    is the client leaving, not a malformed request, so it is not a test failure."""


@dataclass
class Request:
    """One received request. Header names are lower-case; ``json`` is None if not JSON;
    ``at`` is when it had been read whole (``time.monotonic()``, comparable across processes)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes = field(repr=False)
    json: Any = field(default=None, repr=False)
    at: float = field(default_factory=time.monotonic, repr=False)


class Connection:
    """One client socket: buffered request reading, response writing, and a watch for EOF."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.buffer = bytearray()
        self.gone = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None

    async def _fill(self) -> bool:
        data = await self.reader.read(PIECE)
        if not data:
            self.gone.set()
            return False
        self.buffer += data
        return True

    async def _until(self, sep: bytes, limit: int) -> bytes | None:
        while (at := self.buffer.find(sep)) < 0:
            if len(self.buffer) > limit:
                raise BadRequest("request head too large")
            if not await self._fill():
                if self.buffer:
                    raise ClientGone("connection closed mid-request")
                return None
        out = bytes(self.buffer[:at])
        del self.buffer[: at + len(sep)]
        return out

    async def _exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            if not await self._fill():
                raise ClientGone("connection closed mid-body")
        out = bytes(self.buffer[:n])
        del self.buffer[:n]
        return out

    async def read_request(self) -> Request | None:
        """The next request, or None when the client closed the connection between requests."""
        head = await self._until(b"\r\n\r\n", MAX_HEAD)
        if head is None:
            return None
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ")
        except ValueError:
            raise BadRequest(f"bad request line {lines[0][:80]!r}") from None
        if not version.startswith("HTTP/1."):
            raise BadRequest(f"unsupported version {version!r}")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                raise BadRequest(f"bad header line {line[:80]!r}")
            key = name.strip().lower()
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        body = await self._body(headers)
        url = urlsplit(target)
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        return Request(method, url.path, dict(parse_qsl(url.query)), headers, body, parsed)

    async def _body(self, headers: dict[str, str]) -> bytes:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            parts: list[bytes] = []
            while True:
                size_line = await self._until(b"\r\n", MAX_HEAD)
                try:
                    size = int((size_line or b"").split(b";")[0], 16)
                except ValueError:
                    raise BadRequest("bad chunk size") from None
                if size == 0:
                    while await self._until(b"\r\n", MAX_HEAD):  # trailers
                        pass
                    return b"".join(parts)
                parts.append(await self._exactly(size))
                await self._exactly(2)
        length = int(headers.get("content-length", "0") or 0)
        if length > MAX_BODY:
            raise BadRequest("request body too large")
        return await self._exactly(length)

    def watch(self) -> None:
        """While a response is sent, keep reading so a client that goes away is noticed."""

        async def run() -> None:
            while await self._fill():
                pass

        self._watch = asyncio.ensure_future(run())

    async def unwatch(self) -> None:
        """Stop the watch, and wait for it, before the next request is read."""
        task, self._watch = self._watch, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def write(self, data: bytes) -> None:
        if self.gone.is_set():
            raise ConnectionResetError("the client went away")
        self.writer.write(data)
        await self.writer.drain()

    async def send_head(self, code: int, headers: dict[str, str]) -> None:
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Overloaded" if code == 529 else "Status"
        lines = [f"HTTP/1.1 {code} {phrase}"] + [f"{k}: {v}" for k, v in headers.items()]
        await self.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    async def send_whole(self, code: int, headers: dict[str, str], body: bytes) -> None:
        """A complete non-streamed response with content-length."""
        head = {"content-length": str(len(body)), **headers}
        await self.send_head(code, head)
        await self.write(body)

    async def wait_gone(self, timeout: float) -> bool:
        """Wait until the client closes or ``timeout``; True if it went away."""
        try:
            await asyncio.wait_for(self.gone.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def reset(self) -> None:
        """Abort with a TCP RST (SO_LINGER 0), not an orderly FIN."""
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        if not self.writer.transport.is_closing():
            self.writer.transport.close()
