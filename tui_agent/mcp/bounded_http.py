"""A streamable HTTP server's answers, bounded like a stdio server's lines.

The SDK bounds each SSE event (1 MB by default; raised here to ``mcp_max_message_bytes``), but
reads a plain JSON answer whole, whatever its size. This transport cuts a body that is not an
event stream at ``max_bytes`` with a StreamError, which the SDK turns into an error answer to
the request: the call fails at once, naming the limit. (A JSON answer nested too deep already
fails the same way: its parser refuses it.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT


class MessageTooLarge(httpx2.StreamError):
    """An answer past ``mcp_max_message_bytes``."""


class _BoundedBody(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, max_bytes: int) -> None:
        self._inner = inner
        self._max_bytes = max_bytes

    async def __aiter__(self) -> AsyncIterator[bytes]:
        total = 0
        async for chunk in self._inner:
            total += len(chunk)
            if total > self._max_bytes:
                raise MessageTooLarge(
                    f"the server's message was more than the {self._max_bytes:,} bytes allowed "
                    "(setting mcp_max_message_bytes); it was dropped unread"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, max_bytes: int) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._max_bytes = max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if "text/event-stream" not in response.headers.get("content-type", ""):
            stream = response.stream
            assert isinstance(stream, httpx2.AsyncByteStream)
            response.stream = _BoundedBody(stream, self._max_bytes)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def bounded_client(headers: dict[str, str], max_bytes: int) -> httpx2.AsyncClient:
    """The SDK's client (its timeouts, these headers) with answers bounded at ``max_bytes``."""
    timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
    return httpx2.AsyncClient(
        headers=headers, timeout=timeout, transport=BoundedTransport(max_bytes)
    )
