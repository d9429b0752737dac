"""The session's HTTP client makes its transport at its first request (transport/lazy.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tui_agent.transport.lazy import LazyClient, LazyTransport, tls_context


async def _serve_once() -> tuple[asyncio.Server, str]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/"


def test_the_transport_is_made_by_the_first_request() -> None:
    async def main() -> None:
        server, url = await _serve_once()
        async with server, LazyClient(trust_env=False) as client:
            transport = client._transport
            assert isinstance(transport, LazyTransport)
            assert not transport.made
            response = await client.get(url)
            assert (response.status_code, response.text) == (200, "ok")
            assert transport.made

    asyncio.run(main())


def test_prepare_makes_it_ahead() -> None:
    client = LazyClient()
    transport = client._transport
    assert isinstance(transport, LazyTransport) and not transport.made
    client.prepare_transport()
    assert transport.made
    asyncio.run(client.aclose())


def test_proxies_from_the_environment_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx leaves the environment's proxies out when a transport is passed in: this client
    passes none, so they are used as by a plain client."""
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    plain = httpx.AsyncClient()
    lazy = LazyClient()
    assert [str(p.pattern) for p in lazy._mounts] == [str(p.pattern) for p in plain._mounts]
    assert any(p.pattern == "https://" for p in lazy._mounts)
    asyncio.run(plain.aclose())
    asyncio.run(lazy.aclose())


def test_a_tls_setup_failure_is_a_connect_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))

    async def main() -> None:
        async with LazyClient() as client:
            with pytest.raises(httpx.ConnectError, match="TLS could not be set up"):
                await client.get("https://127.0.0.1:9/")

    asyncio.run(main())


def _context_of(client: LazyClient) -> object:
    transport = client._transport
    assert isinstance(transport, LazyTransport)
    client.prepare_transport()
    made = transport._transport
    assert made is not None
    return made._pool._ssl_context


def test_clients_share_one_tls_context_per_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The certificate bundle is loaded once a process, not once a client; a client with
    another bundle in its environment, another verification or HTTP/2 gets a context apart."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first, second = LazyClient(), LazyClient()
    shared = _context_of(first)
    assert _context_of(second) is shared
    assert tls_context() is shared
    assert _context_of(LazyClient(verify=False)) is not shared
    assert tls_context(http2=True) is not shared
    assert tls_context(trust_env=False) is not shared

    bundle = tmp_path / "bundle.pem"
    bundle.write_text(_any_pem(), encoding="ascii")
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    own = _context_of(LazyClient())
    assert own is not shared and _context_of(LazyClient()) is own
    assert tls_context(trust_env=False) is not own  # the environment is not read then
    for client in (first, second):
        asyncio.run(client.aclose())


def _any_pem() -> str:
    """A certificate file ssl accepts: certifi's own bundle."""
    import certifi

    return Path(certifi.where()).read_text(encoding="ascii")
