"""Just enough HTTP/1.1 for the demo server: read one request, write a head, a JSON answer or
the chunks of a streamed body."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024  # a long conversation resends every file it read
LAST_CHUNK = b"0\r\n\r\n"


class BadRequest(Exception):
    """The bytes are not an HTTP/1.1 request the demo server can read."""


@dataclass(frozen=True)
class Request:
    """One request; header names are lower case."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes = field(repr=False)

    @property
    def keep_alive(self) -> bool:
        return "close" not in self.headers.get("connection", "").lower()


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """The next request, or None when the client closed the connection between requests.

    The reader must have been made with ``limit=MAX_HEAD`` (asyncio.start_server's ``limit``).
    """
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise BadRequest("the connection closed in the middle of a request") from None
    except asyncio.LimitOverrunError:
        raise BadRequest("request head too large") from None
    lines = head.decode("latin-1").rstrip("\r\n").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(f"not an HTTP/1.1 request line: {lines[0][:80]!r}")
    method, target, version = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise BadRequest(f"bad header line {line[:80]!r}")
        headers[name.strip().lower()] = value.strip()
    if version == "HTTP/1.0":
        headers.setdefault("connection", "close")
    body = await _read_body(reader, headers)
    return Request(method, urlsplit(target).path, headers, body)


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    try:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            parts: list[bytes] = []
            size = 0
            while True:
                line = await reader.readuntil(b"\r\n")
                length = int(line.split(b";")[0].strip(), 16)
                size += length
                if size > MAX_BODY:
                    raise BadRequest("request body too large")
                if length == 0:
                    while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                        pass
                    return b"".join(parts)
                parts.append((await reader.readexactly(length + 2))[:-2])
        length = int(headers.get("content-length", "0") or 0)
    except ValueError:
        raise BadRequest("bad body length") from None
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        raise BadRequest("the connection closed in the middle of a request body") from None
    if not 0 <= length <= MAX_BODY:
        raise BadRequest("request body too large")
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise BadRequest("the connection closed in the middle of a request body") from None


def head(code: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {code} {HTTPStatus(code).phrase}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def json_response(code: int, payload: Any, *, close: bool = False) -> bytes:
    body = json.dumps(payload).encode()
    headers = {"content-type": "application/json", "content-length": str(len(body))}
    if close:
        headers["connection"] = "close"
    return head(code, headers) + body


def error_payload(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    """An error in the shape OpenAI's API uses, so clients show its message."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def chunk(data: bytes) -> bytes:
    """One piece of a ``transfer-encoding: chunked`` body."""
    return b"%x\r\n%b\r\n" % (len(data), data)
