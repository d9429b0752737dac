"""Esc through the real loop: while a tool runs (its process group killed, "cancelled by user",
status interrupted), while the prompt is open, before the request went out; and a caller that
stops listening. After a cancel the loop waits for the user, and every call in history has a
result. (Esc mid-stream is in tests/hostile/test_network_stream.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tui_agent.agent.call_results import INTERRUPTED
from tui_agent.agent.events import (
    AgentEvent,
    LoopEnded,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
)
from tui_agent.approval import ApprovalMode, approve
from tui_agent.conversation import ToolResultMessage

from .agent_helpers import (
    HOLD,
    LOOP_TIMEOUT_S,
    NAP_TOOL,
    PROTOCOLS,
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    check_order,
    count_text,
    decided,
    finished,
    of_type,
    sent_results,
)
from .fake_provider import Reply
from .support.waiting import WAIT_S
from .tools_helpers import live_members, outer_pgid_of_sleep, sleep_mark

MARK = sleep_mark()
SLEEPER = f"echo started > pgid.txt; sleep {MARK}"  # the shell leads its own process group


def _well_before_the_sleep_ends() -> float:
    """The loop's deadline once Esc was pressed: a bound against a hang, far below the 30 s the
    commands sleep, so a loop that waited for them instead of killing them fails."""
    return asyncio.get_running_loop().time() + WAIT_S


async def read_pgid(workspace: Path) -> int:
    path = workspace / "pgid.txt"
    for _ in range(250):
        if path.exists() and path.read_text().endswith("\n"):
            pgid = outer_pgid_of_sleep(MARK)
            if pgid is not None:
                return pgid
        await asyncio.sleep(0.02)
    raise AssertionError("the command never started")


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_esc_while_a_tool_runs_kills_it_and_waits_for_the_user(
    protocol: str, tmp_path: Path
) -> None:
    calls = call_ops(
        ("call_A", "run_command", {"command": SLEEPER}),
        ("call_B", "write_file", {"path": "b.txt", "content": "B"}),
    )
    expected = {"call_A": INTERRUPTED, "call_B": "cancelled by user"}
    async with agent_over(
        protocol,
        tmp_path,
        Reply(calls),
        answer(protocol, "Stopped."),
        approver=ScriptedApprover(approve(), approve()),
    ) as h:
        events: list[AgentEvent] = []
        pgid = 0
        async with asyncio.timeout(LOOP_TIMEOUT_S) as bound:
            async for event in h.agent.send("sleep, then write"):
                events.append(event)
                if isinstance(event, ToolStarted) and event.call_id == "call_A":
                    pgid = await read_pgid(h.workspace)
                    assert live_members(pgid)
                    h.agent.cancel()
                    bound.reschedule(_well_before_the_sleep_ends())
        check_order(events)
        assert live_members(pgid) == []
        results = finished(events)
        assert (results["call_A"].status, results["call_A"].output) == (
            "interrupted",
            expected["call_A"],
        )
        assert (results["call_B"].status, results["call_B"].output) == (
            "cancelled",
            expected["call_B"],
        )
        assert [e.call_id for e in of_type(events, ToolStarted)] == ["call_A"]
        assert not (h.workspace / "b.txt").exists()
        assert events[-1].outcome == "cancelled"
        await asyncio.sleep(0.2)
        assert len(h.server.requests) == 1  # nothing was sent on by itself
        h.assert_session_valid()
        events = await h.send("why did you stop?")
        assert events[-1] == LoopEnded("complete")
        body = h.server.requests[1].json
        assert sent_results(protocol, body) == expected
        assert count_text(body, "why did you stop?") == 1
        h.server.assert_all_consumed()


async def test_esc_stops_every_concurrent_read(tmp_path: Path) -> None:
    protocol = "anthropic"
    naps = call_ops(("call_A", "nap", {"seconds": "30"}), ("call_B", "nap", {"seconds": "30"}))
    async with agent_over(
        protocol, tmp_path, Reply(naps), mode=ApprovalMode.AUTO_READ, tools=[NAP_TOOL]
    ) as h:
        events: list[AgentEvent] = []
        async with asyncio.timeout(LOOP_TIMEOUT_S) as bound:
            async for event in h.agent.send("nap"):
                events.append(event)
                if isinstance(event, ToolStarted) and event.call_id == "call_B":
                    await asyncio.sleep(0.1)
                    h.agent.cancel()
                    bound.reschedule(_well_before_the_sleep_ends())
        check_order(events)
        assert {e.status for e in finished(events).values()} == {"interrupted"}
        h.assert_session_valid()


async def test_esc_while_the_prompt_is_open_cancels_the_turn(tmp_path: Path) -> None:
    protocol = "openai-chat"
    calls = call_ops(
        ("call_A", "write_file", {"path": "a.txt", "content": "A"}),
        ("call_B", "write_file", {"path": "b.txt", "content": "B"}),
    )
    async with agent_over(
        protocol, tmp_path, Reply(calls), approver=ScriptedApprover(HOLD, approve())
    ) as h:

        async def press_esc() -> None:
            await h.approver.holding.wait()
            h.agent.cancel()

        esc = asyncio.create_task(press_esc())
        events = await h.send("write")
        await esc
        assert [r.call_id for r in h.approver.requests] == ["call_A"]
        assert [(e.decision, e.by) for e in decided(events).values()] == [("cancel", "user")] * 2
        assert {e.status for e in finished(events).values()} == {"cancelled"}
        assert events[-1].outcome == "cancelled"
        assert not list(h.workspace.iterdir())
        h.assert_session_valid()


async def test_esc_before_the_request_went_out_sends_nothing(tmp_path: Path) -> None:
    protocol = "gemini-interactions"
    async with agent_over(protocol, tmp_path, answer(protocol)) as h:
        events: list[AgentEvent] = []
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in h.agent.send("hello"):
                events.append(event)
                if isinstance(event, TurnStarted):
                    h.agent.cancel()
        check_order(events)
        assert events[-1].outcome == "cancelled"
        await asyncio.sleep(0.2)
        assert h.server.requests == []
        assert h.agent.pending_user_message() == "hello"
        events = await h.retry()
        assert events[-1] == LoopEnded("complete")


async def test_esc_after_the_turn_completed_runs_nothing(tmp_path: Path) -> None:
    protocol = "openai-responses"
    calls = call_ops(("call_A", "run_command", {"command": "touch ran"}))
    async with agent_over(protocol, tmp_path, Reply(calls), mode=ApprovalMode.AUTO_ALL) as h:
        events: list[AgentEvent] = []
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in h.agent.send("go"):
                events.append(event)
                if isinstance(event, TurnCompleted):
                    h.agent.cancel()
        check_order(events)
        assert decided(events)["call_A"].decision == "cancel"
        assert finished(events)["call_A"].status == "cancelled"
        assert not (h.workspace / "ran").exists()
        h.assert_session_valid()


async def test_a_caller_that_stops_listening_leaves_no_tool_running(tmp_path: Path) -> None:
    protocol = "gemini"
    calls = call_ops(("call_A", "run_command", {"command": SLEEPER}))
    async with agent_over(protocol, tmp_path, Reply(calls), mode=ApprovalMode.AUTO_ALL) as h:
        before = asyncio.all_tasks()
        events = h.agent.send("sleep")
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in events:
                if isinstance(event, ToolStarted):
                    pgid = await read_pgid(h.workspace)
                    break
        await events.aclose()
        assert live_members(pgid) == []
        assert asyncio.all_tasks() - before == set()
        last = h.agent.messages[-1]
        assert isinstance(last, ToolResultMessage) and last.output == INTERRUPTED
        h.assert_session_valid()


async def test_a_caller_whose_task_is_cancelled_leaves_no_tool_running(tmp_path: Path) -> None:
    """As when the app quits with a tool running: its worker task is cancelled."""
    protocol = "openai-chat"
    calls = call_ops(("call_A", "run_command", {"command": SLEEPER}))
    async with agent_over(protocol, tmp_path, Reply(calls), mode=ApprovalMode.AUTO_ALL) as h:
        started = asyncio.Event()

        async def worker() -> None:
            async for event in h.agent.send("sleep"):
                if isinstance(event, ToolStarted):
                    started.set()

        task = asyncio.create_task(worker())
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            await started.wait()
            pgid = await read_pgid(h.workspace)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert live_members(pgid) == []
        last = h.agent.messages[-1]
        assert isinstance(last, ToolResultMessage) and last.output == INTERRUPTED
        h.assert_session_valid()
