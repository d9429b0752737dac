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

The TLS context of the default verification is made once a process and shared by every client's
transport (``tls_context``): the bundle is the same for all, and each new client (a session
switched, a model list fetched, a subagent's provider) paid the 55-65 ms again.
"""

from __future__ import annotations

import contextlib
import os
import ssl
import threading
from typing import Any

import httpx

_TLS_LOCK = threading.Lock()
_TLS: dict[tuple[bool, bool, str, str], ssl.SSLContext] = {}


def tls_context(*, trust_env: bool = True, http2: bool = False) -> ssl.SSLContext:
    """httpx's default verifying context (certifi's bundle, or the environment's
    ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when ``trust_env``), made once for each such environment.
    Apart for HTTP/2: httpcore sets the context's ALPN protocols from it on each connection."""
    key = (
        trust_env,
        http2,
        os.environ.get("SSL_CERT_FILE", "") if trust_env else "",
        os.environ.get("SSL_CERT_DIR", "") if trust_env else "",
    )
    with _TLS_LOCK:
        context = _TLS.get(key)
        if context is None:
            context = _TLS[key] = httpx.create_ssl_context(verify=True, trust_env=trust_env)
        return context


def _shared_tls(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with the shared context where they ask for the default verification."""
    if arguments.get("verify", True) is not True or arguments.get("cert"):
        return arguments
    context = tls_context(
        trust_env=bool(arguments.get("trust_env", True)),
        http2=bool(arguments.get("http2", False)),
    )
    return {**arguments, "verify": context}


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
                self._transport = httpx.AsyncHTTPTransport(**_shared_tls(self._arguments))
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
