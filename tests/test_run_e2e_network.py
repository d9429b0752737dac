"""`tui-agent run` as a subprocess against a misbehaving provider: what is retried and what is
not, giving up, and the turn deadline. (The issue's network cases, retry-after, 503/529, the idle
watchdog, the drip and resets, are in tests/hostile/test_network_*.py.)"""

from __future__ import annotations

import socket

import pytest

from .fake_provider import (
    Drip,
    FakeProvider,
    Reply,
    Reset,
    Status,
)
from .run_helpers import KEY, Home, final, write_call

pytestmark = pytest.mark.heavy

TARGET = "out.txt"


def test_a_refused_request_is_not_retried(home: Home) -> None:
    with FakeProvider("gemini", api_key=KEY) as server:
        server.script(Status(400), final(server.protocol, "never sent"))
        done = home.run(server, "hello")
        assert len(server.requests) == 1
        assert server.steps_left == 1
    assert done.code == 2
    assert "HTTP 400" in done.stderr and "retrying" not in done.stderr


def test_connection_refused_is_retried_once_then_reported(home: Home) -> None:
    """Nothing listens at the URL: tried once more (a server starting), not max_retries times,
    and the error names the address that did not answer."""
    home.settings(max_retries=4, retry_max_wait=0.1)
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with FakeProvider("openai-responses", api_key=KEY) as server:
        argv = home.argv(server, "hello")
        argv[argv.index(server.base_url)] = f"http://127.0.0.1:{port}/v1"
        done = home.run_argv(argv)
        assert not server.requests
    assert done.code == 2
    assert "(cannot connect), attempt 2" in done.stderr
    assert "attempt 3" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert f"nothing answered at http://127.0.0.1:{port} (connection refused)" in last, last
    assert "Traceback" not in done.stderr


def test_reset_before_any_response_byte_is_retried(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(faults=Reset(None)), final(server.protocol, "Second try worked."))
        done = home.run(server, "hello")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert done.stdout == "Second try worked.\n"
    assert "(connection lost before a response), attempt 2" in done.stderr


def test_a_retry_wait_past_the_turn_deadline_fails_at_once(home: Home) -> None:
    home.settings(turn_deadline=8.0)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Status(429, {"retry-after": "30"}), final(server.protocol, "unused"))
        done = home.run(server, "hello")
        assert len(server.requests) == 1
    assert done.code == 2
    assert "HTTP 429 (rate limited)" in done.stderr
    # Said when the wait is decided, before any sleep: it never slept towards the retry.
    assert "(not retried: waiting 30.0 s would pass the turn deadline of 8 s)" in done.stderr
    assert "retrying" not in done.stderr and "Traceback" not in done.stderr


def test_retries_give_up_with_the_servers_message(home: Home) -> None:
    home.settings(max_retries=0)
    body = b'{"error": {"message": "slow down please", "type": "rate_limit"}}'
    with FakeProvider("gemini-interactions", api_key=KEY) as server:
        server.script(Status(429, {"retry-after": "1e9"}, body))
        done = home.run(server, "hello")
        server.assert_all_consumed()
    assert done.code == 2  # a wait of 1e9 s slept out would fail the run's 30 s bound instead
    assert "HTTP 429 (rate limited): slow down please" in done.stderr
    assert "retrying" not in done.stderr


def test_a_stream_cut_by_the_deadline_keeps_what_it_showed_for_the_record(home: Home) -> None:
    home.settings(turn_deadline=1.0, idle_timeout=5.0)
    ops = [("text", "Writing now. "), *write_call(TARGET, "w" * 3000)]
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(ops, faults=Drip(16, 0.01)))
        done = home.run(server, "write it", approve="all")
        server.assert_all_consumed()
    assert done.code == 2
    assert done.stdout == "Writing now. \n"
    assert "passed its deadline of 1 s" in done.stderr
    assert not (home.workspace / TARGET).exists()
    truncated = home.records()[-1]
    assert truncated["type"] == "truncated" and truncated["reason"] == "cut"
    assert truncated["text"] == "Writing now. "
    assert truncated["pending_calls"] == [{"id": "call_W", "name": "write_file"}]


def test_a_slow_small_stream_within_the_deadline_completes(home: Home) -> None:
    home.settings(turn_deadline=20.0, idle_timeout=1.0)
    body = (
        b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"slow ok"},'
        b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(body, faults=Drip(1, 0.01)))
        done = home.run(server, "hello")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert done.stdout == "slow ok\n"
    assert done.seconds > len(body) * 0.01 * 0.8
