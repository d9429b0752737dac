"""`tui-agent run` as a subprocess: nothing runs before the terminal event, and a turn that
ends early (reset, error event, no terminal event) runs nothing and is not saved as a turn."""

from __future__ import annotations

import time
from typing import Any

import pytest

from . import wire
from .fake_provider import (
    ErrorEvent,
    ExpectToolResults,
    FakeProvider,
    Reply,
    Reset,
    StallBeforeTerminal,
)
from .run_helpers import KEY, Home, JsonLines, final, types, write_call

pytestmark = pytest.mark.heavy

PROTOCOLS = list(wire.BUILDERS)
CONTENT = "A" * 400  # long enough that a cut lands inside the arguments
TARGET = "made/by-the-model.txt"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_no_tool_runs_before_the_terminal_event(protocol: str, home: Home) -> None:
    ops = write_call(TARGET, CONTENT)
    target = home.workspace / TARGET
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(ops, faults=StallBeforeTerminal()),
            final(protocol, "Wrote it.", ExpectToolResults({"call_W": None})),
        )
        process = home.start(server, "write the file", "--json", approve="all")
        with JsonLines(process) as lines:
            assert server.wait_stalled(15.0), "the stream never reached its terminal event"
            announced = lines.wait_for("tool_call_announced")
            assert announced["name"] == "write_file"
            time.sleep(0.3)  # the client has every byte but the terminal event: give it time
            assert process.poll() is None
            assert not target.exists(), "write_file ran before the terminal event"
            seen = {e["type"] for e in lines.seen}
            assert not seen & {"turn_completed", "call_decided", "tool_started"}, seen
            server.release()
            done = lines.finish()
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert target.read_text("utf-8") == CONTENT
    kinds = [e["type"] for e in lines.seen]
    assert kinds.index("turn_completed") < kinds.index("call_decided") < kinds.index("tool_started")


def _inside_arguments(protocol: str, ops: list[Any]) -> int:
    """A body offset in the middle of the call's argument bytes."""
    body = wire.BUILDERS[protocol](ops)
    first = body.find(b"AAAAAAAA")
    last = body.rfind(b"AAAAAAAA")
    assert 0 < first < last
    return (first + last) // 2


def _assert_cut_turn_kept_nothing(home: Home, protocol: str) -> dict[str, Any]:
    assert not (home.workspace / TARGET).exists()
    assert not (home.workspace / "made").exists()
    records = home.records()
    assert types(records) == ["header", "user", "truncated"], types(records)
    truncated = records[-1]
    assert truncated["protocol"] == protocol
    return truncated


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_reset_inside_the_arguments_runs_nothing(protocol: str, home: Home) -> None:
    ops = write_call(TARGET, CONTENT)
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(ops, faults=Reset(_inside_arguments(protocol, ops))))
        done = home.run(server, "write the file", approve="all")
        server.assert_all_consumed()
        assert len(server.requests) == 1, "a stream that started is never re-sent"
    assert done.code == 2, done.stderr
    assert done.stdout == ""
    assert "Turn discarded" in done.stderr and "connection broke" in done.stderr
    assert "Traceback" not in done.stderr
    truncated = _assert_cut_turn_kept_nothing(home, protocol)
    assert truncated["reason"] == "cut"
    if protocol != "gemini":  # gemini sends a call whole, in the one event that was cut
        assert truncated["raw"], "the diagnostic keeps the events that were received"
        assert [c["id"] for c in truncated["pending_calls"]] == ["call_W"]
        assert truncated["pending_calls"][0]["name"] == "write_file"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_error_event_after_a_whole_call_runs_nothing(protocol: str, home: Home) -> None:
    ops = write_call(TARGET, CONTENT)
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(ops, faults=ErrorEvent("fake provider: overloaded now")))
        done = home.run(server, "write the file", approve="all")
        server.assert_all_consumed()
    assert done.code == 2, done.stderr
    assert "Turn discarded" in done.stderr and "overloaded now" in done.stderr
    truncated = _assert_cut_turn_kept_nothing(home, protocol)
    assert truncated["reason"] == "error"
    assert truncated["raw"]
    assert "overloaded now" in (truncated["error"] or "")
    assert [c["id"] for c in truncated["pending_calls"]] == ["call_W"]


# Where a stream can end one step short of its terminal event: chat's finish_reason without
# [DONE], anthropic's stop_reason without message_stop, gemini's call without a finishReason.
# (For the other two the terminal event is the only end marker; the ordering test holds it back.)
@pytest.mark.parametrize("protocol", ["openai-chat", "anthropic", "gemini"])
def test_stream_without_terminal_event_runs_nothing(protocol: str, home: Home) -> None:
    ops = write_call(TARGET, CONTENT)
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(ops, terminal=False))
        done = home.run(server, "write the file", approve="all")
        server.assert_all_consumed()
    assert done.code == 2, done.stderr
    assert "Turn discarded" in done.stderr and "ended before" in done.stderr
    truncated = _assert_cut_turn_kept_nothing(home, protocol)
    assert truncated["reason"] == "cut"
    assert [c["id"] for c in truncated["pending_calls"]] == ["call_W"]
