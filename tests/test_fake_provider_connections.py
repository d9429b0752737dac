"""The fake provider's connections over real sockets: a stalled or held reply stays open until
the client leaves, a client that leaves mid-request is not a failure, and stop() is prompt."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

from . import wire
from .fake_provider import FakeProvider, HeadersThenSilence, Reply, Stall
from .fake_provider.samples import request, url
from .support.waiting import WAIT_S

TIMEOUT = httpx.Timeout(5.0)
TEXT_OPS = [("text", "Sunny, "), ("text", "18C.")]


@pytest.mark.parametrize("fault", [Stall(after_bytes=200), HeadersThenSilence()])
def test_stall_holds_until_the_client_gives_up_and_closes(fault: Stall) -> None:
    with (
        FakeProvider("gemini", hold_timeout_s=10) as server,
        httpx.Client(timeout=httpx.Timeout(5.0, read=0.3)) as client,
    ):
        server.script(Reply(TEXT_OPS, faults=[fault]))
        got = bytearray()
        started = time.monotonic()
        with client.stream("POST", url(server.base_url, "gemini"), json=request("gemini")) as r:
            assert r.status_code == 200
            with pytest.raises(httpx.ReadTimeout):
                for chunk in r.iter_raw():
                    got += chunk
            assert time.monotonic() - started >= 0.3  # a timeout: the server did not close
        assert bytes(got) == wire.gemini(TEXT_OPS)[: fault.after_bytes]
        assert server.wait_connections(0, 2.0)  # httpx closed it, and the server noticed


def test_held_connection_stays_open_until_the_client_leaves() -> None:
    with FakeProvider("openai-chat") as server:
        server.script(Reply(TEXT_OPS, faults=[Stall(after_bytes=10)]))
        body = json.dumps(request("openai-chat")).encode()
        head = f"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: {len(body)}"
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(head.encode() + b"\r\ncontent-type: application/json\r\n\r\n" + body)
            got = b""
            while not got.endswith(b"\r\n" + wire.chat(TEXT_OPS)[:10] + b"\r\n"):
                got += sock.recv(4096)
            time.sleep(0.3)
            assert server.connections_open == 1
        assert server.wait_connections(0, 2.0)
        assert server.wait_connections(0, 2.0)


def test_a_client_that_leaves_mid_request_is_not_a_failure_but_a_malformed_one_is() -> None:
    """A process that exits with a request half sent (a background model-information question)
    is the client leaving; bytes that are not HTTP are a broken request and fail the test."""
    with FakeProvider("openai-chat") as server:
        half_body = b'POST /api/show HTTP/1.1\r\ncontent-length: 40\r\n\r\n{"model"'
        for partial in (half_body, b"GET /pro"):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
                sock.sendall(partial)
        assert server.wait_connections(0, 2.0)
        assert server.failures == []
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"NONSENSE\r\n\r\n")
            sock.recv(4096)
        assert server.wait_connections(0, 2.0)
        assert [f for f in server.failures if "bad request line" in f]
        server.failures.clear()


def test_stop_returns_promptly_with_a_held_connection() -> None:
    server = FakeProvider("openai-chat", hold_timeout_s=30).start()
    try:
        server.script(Reply(TEXT_OPS, faults=[HeadersThenSilence()]))
        with httpx.Client(timeout=TIMEOUT) as client:
            target = url(server.base_url, "openai-chat")
            with client.stream("POST", target, json=request("openai-chat")) as r:
                assert r.status_code == 200
                # Bounded far below the 30 s hold: a stop that waited for it is still running.
                stopping = threading.Thread(target=server.stop)
                stopping.start()
                stopping.join(WAIT_S)
                assert not stopping.is_alive(), "stop waited for the held connection"
                with pytest.raises(httpx.HTTPError):
                    r.read()
    finally:
        server.stop()
    assert server.connections_open == 0
