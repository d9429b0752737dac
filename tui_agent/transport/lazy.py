"""An httpx client whose transport is made when the first request goes out, not with it.

``httpx.AsyncClient()`` makes its transport at once: it imports httpcore and builds the TLS
context, loading the certificate bundle (about 55-65 ms of CPU here, measured), and a session's
host makes its client while the session opens. ``LazyClient`` is that client with the same
transport (``httpx.AsyncHTTPTransport`` with the arguments the client gives it, the environment's
``SSL_CERT_FILE``/``SSL_CERT_DIR`` included), made by the first request or by
``prepare_transport()`` beforehand (the app calls it in a thread once the session is open).
Everything else is the client's as before: proxies from the environment (httpx turns them off
when a transport is passed in, so this client does not pass one; it makes its own lazily where
httpx makes the default), timeouts, redirects.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import httpx


class LazyTransport(httpx.AsyncBaseTransport):
    """``httpx.AsyncHTTPTransport(**arguments)``, made once, by the first request or
    ``prepare()``."""

    def __init__(self, **arguments: Any) -> None:
        self._arguments = arguments
        self._transport: httpx.AsyncHTTPTransport | None = None
        self._lock = threading.Lock()  # prepare() runs in a thread; made once either way
        self._closed = False

    @property
    def made(self) -> bool:
        return self._transport is not None

    def prepare(self) -> None:
        """Make the transport now (in any thread) if it is not made yet; a failure is left for
        the first request to report."""
        with contextlib.suppress(OSError):
            self._made()

    def _made(self) -> httpx.AsyncHTTPTransport:
        with self._lock:
            if self._transport is None:
                self._transport = httpx.AsyncHTTPTransport(**self._arguments)
            return self._transport

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._closed:
            raise RuntimeError("the transport is closed")
        try:
            transport = self._made()
        except OSError as exc:  # ssl.SSLError too: a certificate bundle that cannot be read
            raise httpx.ConnectError(f"TLS could not be set up: {exc}", request=request) from exc
        return await transport.handle_async_request(request)

    async def aclose(self) -> None:
        self._closed = True
        with self._lock:
            transport = self._transport
        if transport is not None:
            await transport.aclose()


class LazyClient(httpx.AsyncClient):
    """``httpx.AsyncClient`` whose default transport is a ``LazyTransport``."""

    def _init_transport(  # type: ignore[override]  # the arguments are httpx's, passed on
        self, transport: httpx.AsyncBaseTransport | None = None, **arguments: Any
    ) -> httpx.AsyncBaseTransport:
        if transport is not None:
            return transport
        return LazyTransport(**arguments)

    def prepare_transport(self) -> None:
        """Make the default transport now (in any thread), ahead of the first request."""
        if isinstance(self._transport, LazyTransport):
            self._transport.prepare()
