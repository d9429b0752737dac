"""Network, part 2: once a response has started it is never sent again. A 503/529 error after the
first byte, headers then silence (the idle watchdog), a 1 byte/s drip (only the turn deadline
stops it), a reset in the middle of arguments: each ends the turn as truncated, with a clear
reason, nothing of it runs and history is rolled back. Esc mid-stream closes the response (the
server sees the client go) and leaves no task of ours behind, in the agent loop and in the app.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.worker import WorkerState

from tui_agent.agent.events import AgentEvent, LoopEnded, ToolStarted, TurnStarted, TurnTruncated
from tui_agent.approval import ApprovalMode
from tui_agent.conversation import UserMessage
from tui_agent.session.records import TruncatedRecord, UserRecord
from tui_agent.stream.events import TextDelta

from .. import wire
from ..agent_helpers import (
    LOOP_TIMEOUT_S,
    PROTOCOLS,
    Harness,
    agent_over,
    answer,
    call_ops,
    check_order,
    count_text,
    of_type,
)
from ..approval_prompt_app import screen_text
from ..fake_provider import (
    Drip,
    ErrorEvent,
    FakeProvider,
    HeadersThenSilence,
    Reply,
    Reset,
    Stall,
    StallBeforeTerminal,
)
from ..run_helpers import write_call
from ..support.waiting import WAIT_S
from ..ui_app_helpers import KEY as APP_KEY
from ..ui_app_helpers import (
    AppEnv,
    cards,
    offset_of,
    prompt_text,
    running,
    send,
    sent_texts,
    wait_for,
    wait_idle_agent,
    wait_text,
)
from ..ui_app_helpers import answer as app_answer
from ..ui_app_helpers import call_ops as app_call_ops

TARGET = "made.txt"
CONTENT = "A" * 400  # long enough that a cut lands inside the arguments
IDLE_S = 0.4
# 1 byte/s, scaled: one byte every DRIP_S, well inside the idle timeout, for longer than it.
DRIP_S = 0.04
DRIP_IDLE_S = 0.25
DRIP_DEADLINE_S = 0.75
MESSAGE = "please write made.txt"
_LIVE = (WorkerState.PENDING, WorkerState.RUNNING)


def _inside_arguments(protocol: str, ops: list[Any]) -> int:
    """A body offset in the middle of the call's argument bytes."""
    body = wire.BUILDERS[protocol](ops)
    first, last = body.find(b"AAAAAAAA"), body.rfind(b"AAAAAAAA")
    assert 0 < first < last
    return (first + last) // 2


async def _cut_turn(h: Harness) -> tuple[list[AgentEvent], TurnTruncated, float]:
    """Send MESSAGE; the events, the one truncation and the seconds from TurnStarted to it."""
    events = await h.send(MESSAGE)
    cut = [(t, e) for t, e in h.stamps if isinstance(e, TurnTruncated)]
    assert len(cut) == 1, f"not one truncated turn ({len(h.server.requests)} requests went out)"
    started = next(t for t, e in h.stamps if isinstance(e, TurnStarted))
    return events, cut[0][1], cut[0][0] - started


async def _assert_nothing_kept_nor_re_sent(
    h: Harness, events: list[AgentEvent], *, dropped: bool = True
) -> None:
    """Nothing ran, the request went out once, and only the user's message is left; a
    connection that broke or stalled was dropped, not kept for the pool."""
    assert events[-1].outcome == "truncated"
    assert not of_type(events, ToolStarted) and not h.approver.requests
    assert not (h.workspace / TARGET).exists()
    await asyncio.sleep(0.1)  # a re-send would come now
    assert len(h.server.requests) == 1, "a response that started was sent again"
    assert h.agent.messages == [UserMessage(MESSAGE)]
    assert [r.type for r in h.records()] == ["user", "truncated"]
    h.assert_session_valid()
    if dropped:
        assert await asyncio.to_thread(h.server.wait_connections, 0, 5.0)


@pytest.mark.parametrize(
    ("protocol", "code"), [(p, ("503", "529")[i % 2]) for i, p in enumerate(PROTOCOLS)]
)
async def test_503_or_529_after_the_first_byte_is_never_re_sent(
    protocol: str, code: str, tmp_path: Path
) -> None:
    ops = write_call(TARGET, CONTENT)
    error = ErrorEvent(f"HTTP {code}: the model is overloaded", after_ops=len(ops) // 2)
    async with agent_over(
        protocol,
        tmp_path,
        Reply(ops, faults=error),
        Reply(ops),  # a re-send would get the whole call, and run it (everything is approved)
        mode=ApprovalMode.AUTO_ALL,
        settings={"max_retries": 4, "retry_max_wait": 0.05},
    ) as h:
        events, truncated, _ = await _cut_turn(h)
        assert f"HTTP {code}: the model is overloaded" in (truncated.turn.error or "")
        assert f"HTTP {code}" in truncated.message
        await _assert_nothing_kept_nor_re_sent(h, events, dropped=False)  # a whole body
        assert h.server.steps_left == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_headers_then_silence_the_idle_watchdog_fires(protocol: str, tmp_path: Path) -> None:
    async with agent_over(
        protocol,
        tmp_path,
        Reply(write_call(TARGET, CONTENT), faults=HeadersThenSilence()),
        mode=ApprovalMode.AUTO_ALL,
        settings={"idle_timeout": IDLE_S, "turn_deadline": 60.0},
    ) as h:
        events, truncated, took = await _cut_turn(h)
        assert truncated.turn.error == "no data from the provider within the idle timeout"
        assert "idle timeout" in truncated.message
        assert took >= IDLE_S  # never early; how late is the machine's (the error says why)
        await _assert_nothing_kept_nor_re_sent(h, events)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_one_byte_per_second_drip_only_the_turn_deadline_stops_it(
    protocol: str, tmp_path: Path
) -> None:
    async with agent_over(
        protocol,
        tmp_path,
        Reply(write_call(TARGET, CONTENT), faults=Drip(1, DRIP_S)),
        mode=ApprovalMode.AUTO_ALL,
        settings={"idle_timeout": DRIP_IDLE_S, "turn_deadline": DRIP_DEADLINE_S},
    ) as h:
        events, truncated, took = await _cut_turn(h)
        # Each byte kept the idle watchdog quiet for three times its timeout; the deadline cut it.
        assert f"passed its deadline of {DRIP_DEADLINE_S:g} s" in (truncated.turn.error or "")
        assert "deadline" in truncated.message
        assert took >= DRIP_DEADLINE_S  # never early
        await _assert_nothing_kept_nor_re_sent(h, events)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_reset_in_the_middle_of_arguments(protocol: str, tmp_path: Path) -> None:
    ops = write_call(TARGET, CONTENT)
    async with agent_over(
        protocol,
        tmp_path,
        Reply(ops, faults=Reset(_inside_arguments(protocol, ops))),
        answer(protocol, "Second try."),
        mode=ApprovalMode.AUTO_ALL,
    ) as h:
        events, truncated, _ = await _cut_turn(h)
        assert truncated.turn.error == "the connection broke: ReadError"
        assert "the connection broke" in truncated.message
        if protocol != "gemini":  # gemini sends a call whole, in the one event that was cut
            assert [c.id for c in truncated.turn.pending_calls] == ["call_W"]
        await _assert_nothing_kept_nor_re_sent(h, events)
        [record] = of_type(h.records(), TruncatedRecord)
        assert record.error == "the connection broke: ReadError"
        # The message was kept once; retrying sends it once more, and nothing of the cut turn.
        events = await h.retry()
        assert events[-1] == LoopEnded("complete")
        assert count_text(h.server.requests[1].json, MESSAGE) == 1
        assert count_text(h.server.requests[1].json, "AAAA") == 0
        assert len(of_type(h.records(), UserRecord)) == 1
        h.assert_session_valid()


@pytest.mark.heavy
async def test_reset_in_the_middle_of_arguments_the_app_says_why_and_ctrl_r_retries(
    env: AppEnv,
) -> None:
    protocol = "openai-chat"
    message = "write the report please"
    arguments = {"path": "report.md", "content": "# Report\n" * 20}
    ops = app_call_ops(("call_W", "write_file", arguments), text="I will write the report.")
    cut = offset_of(protocol, ops, "# Report")  # in the middle of the arguments
    with FakeProvider(protocol, api_key=APP_KEY) as server:
        server.script(Reply(ops, faults=Reset(cut)), app_answer(protocol, "Second try worked."))
        async with running(server, env) as (app, pilot):
            await send(pilot, message)
            await wait_idle_agent(pilot)
            await wait_text(pilot, "press Ctrl+R to send the message again")
            text = screen_text(app)
            assert "pending calls not run: write_file" in text
            # The streamed text stays, struck through, under the reason it was discarded.
            assert "I will write the report." in text
            assert "⚠ Turn discarded, the stream ended before the provider finished" in text
            # Nobody cancelled it: the turn was cut, and the call was not run.
            assert [card.state for card in cards(app)] == ["cut"]
            assert "not run, the turn was cut: write_file" in text
            assert "write_file not run" in text  # the calls panel too
            assert "cancelled" not in text
            assert not app.query("ApprovalPrompt")
            assert prompt_text(app) == ""  # a cut stream keeps the message: Ctrl+R resends it

            await pilot.press("ctrl+r")
            await wait_text(pilot, "↻ retry: your last message is sent again")
            await wait_text(pilot, "Second try worked.")
            await wait_idle_agent(pilot)
            assert screen_text(app).count(message) == 1
        assert len(server.requests) == 2
        assert sent_texts(server, 1).count(message) == 1
        assert not (env.workspace / "report.md").exists()
        types = env.types()
        assert types.count("user") == 1
        assert types.index("truncated") < types.index("assistant")
        server.assert_all_consumed()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_esc_mid_stream_closes_the_response_and_leaves_nothing_behind(
    protocol: str, tmp_path: Path
) -> None:
    ops = call_ops(("call_A", "write_file", {"path": "a.txt", "content": "A"}), text="Writing")
    async with agent_over(
        protocol,
        tmp_path,
        Reply(ops, faults=StallBeforeTerminal()),
        answer(protocol, "Hello again."),
    ) as h:
        before = asyncio.all_tasks()
        events: list[AgentEvent] = []
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in h.agent.send("please write a.txt"):
                events.append(event)
                if isinstance(event, TextDelta):
                    assert await h.server.wait_stalled_async()
                    h.agent.cancel()
        check_order(events)
        [truncated] = of_type(events, TurnTruncated)
        assert truncated.turn.error == "cancelled by user"
        assert [c.id for c in truncated.turn.pending_calls] == ["call_A"]
        assert events[-1].outcome == "cancelled"
        assert not h.approver.requests and not list(h.workspace.iterdir())
        assert asyncio.all_tasks() - before == set()
        # The response was closed, not left for the pool: the server saw the client go.
        assert await asyncio.to_thread(h.server.wait_connections, 0, 5.0)
        # The turn never happened; the user's message stays and can be sent once more.
        assert h.agent.messages == [UserMessage("please write a.txt")]
        [record] = of_type(h.records(), TruncatedRecord)
        assert record.pending_calls == [{"id": "call_A", "name": "write_file"}]
        assert h.agent.pending_user_message() == "please write a.txt"
        events = await h.retry()
        assert events[-1] == LoopEnded("complete")
        assert count_text(h.server.requests[1].json, "please write a.txt") == 1
        assert len(of_type(h.records(), UserRecord)) == 1
        h.assert_session_valid()
        h.server.assert_all_consumed()
    assert h.server.connections_open == 0


def _our_tasks() -> set[asyncio.Task[Any]]:
    """Live tasks running our code or our HTTP client's (not Textual's own message pumps)."""
    out = set()
    for task in asyncio.all_tasks():
        coro = task.get_coro()
        code = getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)
        where = code.co_filename if code is not None else ""
        if not task.done() and any(p in where for p in ("tui_agent", "httpx", "httpcore")):
            out.add(task)
    return out


async def test_esc_mid_stream_in_the_app_closes_the_response_and_leaves_no_task(
    env: AppEnv,
) -> None:
    protocol = "anthropic"
    ops = [("text", "The first half of an answer, "), ("text", "and the rest never comes.")]
    with FakeProvider(protocol, api_key=APP_KEY) as server:
        server.script(Reply(ops, faults=Stall(offset_of(protocol, ops, "and the rest"))))
        async with running(server, env) as (app, pilot):
            before = _our_tasks()
            await send(pilot, "tell me something")
            await wait_text(pilot, "The first half of an answer")
            assert _our_tasks() - before, "the stream should be running now"
            assert server.connections_open == 1
            await pilot.press("escape")
            await wait_idle_agent(pilot)  # the stall holds the response forever: this is Esc's
            assert await asyncio.to_thread(server.wait_connections, 0, WAIT_S)
            await wait_text(pilot, "your message is back in the input")
            await wait_for(pilot, lambda: not _our_tasks() - before, "our tasks to end")
            assert not [w for w in app.workers if w.state in _LIVE]
            assert prompt_text(app) == "tell me something"
            assert app.host is not None and app.host.agent.messages == []
            await wait_for(pilot, lambda: "nothing of it ran" in screen_text(app), "the reason")
        assert env.types() == ["header", "user", "truncated", "withdraw"]
        truncated = env.records()[2]
        assert truncated["error"] == "cancelled by user"
        assert truncated["text"] == "The first half of an answer, "
