"""`tui-agent run` as a subprocess against a misbehaving provider: retries only before the first
byte, a bounded wait for retry-after, the idle watchdog and the turn deadline."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from .fake_provider import (
    Drip,
    ExpectToolResults,
    FakeProvider,
    HeadersThenSilence,
    Reply,
    Reset,
    Status,
)
from .run_helpers import KEY, Home, LineReader, final, types, write_call

TARGET = "out.txt"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def test_429_with_retry_after_ms_is_retried(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Status(429, {"retry-after-ms": "50"}),
            final(server.protocol, "Answer after the retry."),
        )
        done = home.run(server, "hello")
        server.assert_all_consumed()
        assert len(server.requests) == 2
    assert done.code == 0, done.stderr
    assert done.stdout == "Answer after the retry.\n"
    assert "retrying in 0.1 s (HTTP 429), attempt 2" in done.stderr
    assert types(home.records()) == ["header", "user", "assistant"]


def test_500_then_529_are_retried_with_backoff(home: Home) -> None:
    home.settings(retry_max_wait=0.2)
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(Status(500), Status(529), final(server.protocol, "Finally."))
        done = home.run(server, "hello")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert done.stdout == "Finally.\n"
    assert "(HTTP 500), attempt 2" in done.stderr
    assert "(HTTP 529), attempt 3" in done.stderr


def test_a_refused_request_is_not_retried(home: Home) -> None:
    with FakeProvider("gemini", api_key=KEY) as server:
        server.script(Status(400), final(server.protocol, "never sent"))
        done = home.run(server, "hello")
        assert len(server.requests) == 1
        assert server.steps_left == 1
    assert done.code == 2
    assert "HTTP 400" in done.stderr and "retrying" not in done.stderr


def test_connection_refused_is_retried_then_reported(home: Home) -> None:
    home.settings(max_retries=1, retry_max_wait=0.1)
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
    assert "cannot connect" in done.stderr.splitlines()[-1]
    assert "Traceback" not in done.stderr


def test_reset_before_any_response_byte_is_retried(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(faults=Reset(None)), final(server.protocol, "Second try worked."))
        done = home.run(server, "hello")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert done.stdout == "Second try worked.\n"
    assert "(connection lost before a response), attempt 2" in done.stderr


def test_a_stream_cut_after_its_first_bytes_is_never_re_sent(home: Home) -> None:
    ops = write_call(TARGET, "x" * 200)
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(ops, faults=Reset(300)),
            Reply(ops),  # a re-send would get a whole call and run it
            final(server.protocol, "unused", ExpectToolResults({"call_W": None})),
        )
        done = home.run(server, "write it", approve="all")
        assert len(server.requests) == 1
        assert server.steps_left == 2
    assert done.code == 2
    assert "retrying" not in done.stderr
    assert not (home.workspace / TARGET).exists()
    assert types(home.records()) == ["header", "user", "truncated"]


def test_a_huge_retry_after_is_capped_at_60_seconds(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Status(429, {"retry-after": "1e9"}), final(server.protocol, "unused"))
        process = home.start(server, "hello")
        stderr = LineReader(process.stderr)
        try:
            line = stderr.next(15.0)
            assert process.poll() is None, "the run gave up instead of waiting"
        finally:
            process.kill()  # it would wait the whole 60 s
            process.wait()
            stderr.rest()
            assert process.stdout is not None and process.stderr is not None
            process.stdout.close()
            process.stderr.close()
        assert len(server.requests) == 1
    assert line == "retrying in 60.0 s (HTTP 429), attempt 2\n"


def test_a_retry_wait_past_the_turn_deadline_fails_at_once(home: Home) -> None:
    home.settings(turn_deadline=8.0)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Status(429, {"retry-after": "30"}), final(server.protocol, "unused"))
        done = home.run(server, "hello")
        assert len(server.requests) == 1
    assert done.code == 2
    assert done.seconds < 6, "it slept towards a retry that could not happen"
    assert "HTTP 429 (rate limited)" in done.stderr
    assert "would pass the turn deadline of 8 s" in done.stderr
    assert "retrying" not in done.stderr and "Traceback" not in done.stderr


def test_retries_give_up_with_the_servers_message(home: Home) -> None:
    home.settings(max_retries=0)
    body = b'{"error": {"message": "slow down please", "type": "rate_limit"}}'
    with FakeProvider("gemini-interactions", api_key=KEY) as server:
        server.script(Status(429, {"retry-after": "1e9"}, body))
        done = home.run(server, "hello")
        server.assert_all_consumed()
    assert done.code == 2
    assert done.seconds < 10
    assert "HTTP 429 (rate limited): slow down please" in done.stderr
    assert "retrying" not in done.stderr


def test_idle_watchdog_cuts_a_silent_stream(home: Home) -> None:
    home.settings(idle_timeout=1.0)
    with FakeProvider("openai-responses", api_key=KEY) as server:
        server.script(Reply(write_call(TARGET, "y" * 300), faults=HeadersThenSilence()))
        done = home.run(server, "write it", approve="all")
        server.assert_all_consumed()
    assert done.code == 2
    assert done.seconds < 8
    assert "idle timeout" in done.stderr
    assert not (home.workspace / TARGET).exists()
    assert types(home.records()) == ["header", "user", "truncated"]


def test_turn_deadline_cuts_a_dripping_stream(home: Home) -> None:
    home.settings(turn_deadline=1.0, idle_timeout=5.0)
    with FakeProvider("gemini", api_key=KEY) as server:
        server.script(Reply(write_call(TARGET, "z" * 300), faults=Drip(1, 0.01)))
        done = home.run(server, "write it", approve="all")
        server.assert_all_consumed()
    assert done.code == 2
    assert done.seconds < 8
    assert "passed its deadline of 1 s" in done.stderr
    assert not (home.workspace / TARGET).exists()
    assert types(home.records()) == ["header", "user", "truncated"]


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
