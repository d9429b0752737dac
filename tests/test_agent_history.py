"""What the conversation keeps: a truncated turn never happened (the user's message stays, to be
retried once or withdrawn), and a call cut off by a crash gets an "interrupted" result on resume
and is never run again by itself."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import httpx
import pytest

from tui_agent.agent.events import AgentEvent, LoopEnded, Notice, ToolStarted, TurnTruncated
from tui_agent.agent.history import INTERRUPTED, messages_from_records
from tui_agent.approval import ApprovalPolicy, approve, deny
from tui_agent.config import Config
from tui_agent.conversation import AssistantMessage, Message, ToolResultMessage, UserMessage
from tui_agent.session import SessionStore, SessionWriter
from tui_agent.session.records import (
    DecisionRecord,
    ToolResultRecord,
    ToolStartRecord,
    TruncatedRecord,
    UserRecord,
    WithdrawRecord,
)
from tui_agent.wiring.setup import build_agent

from .agent_helpers import (
    LOOP_TIMEOUT_S,
    PROTOCOLS,
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    check_order,
    count_text,
    of_type,
    profile_for,
    sent_results,
)
from .fake_provider import ErrorEvent, ExpectToolResults, FakeProvider, Reply, Reset, Status

WRITE = ("call_A", "write_file", {"path": "a.txt", "content": "A"})


def truncating_steps(protocol: str) -> list[Reply]:
    """Ways a turn ends early after it announced a call: each must leave nothing behind."""
    ops = call_ops(WRITE, text="Writing")
    return [
        Reply(ops, faults=ErrorEvent("overloaded", after_ops=4)),
        Reply(ops, faults=Reset(after_bytes=200)),
        Reply(ops, terminal=False),
        Reply(ops, faults=Status(400)),
    ]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("how", range(4), ids=["error-event", "reset", "no-terminal", "http-400"])
async def test_a_truncated_turn_keeps_the_message_and_retry_sends_it_once(
    protocol: str, how: int, tmp_path: Path
) -> None:
    text = "please write a.txt"
    async with agent_over(
        protocol,
        tmp_path,
        truncating_steps(protocol)[how],
        answer(protocol, "Written."),
    ) as h:
        events = await h.send(text)
        [truncated] = of_type(events, TurnTruncated)
        assert events[-1] == LoopEnded("truncated", truncated.message)
        assert not h.approver.requests and not list(h.workspace.iterdir())
        assert h.agent.messages == [UserMessage(text)]
        assert h.agent.pending_user_message() == text
        assert len(of_type(h.records(), TruncatedRecord)) == 1
        events = await h.retry()
        assert events[-1] == LoopEnded("complete")
        assert count_text(h.server.requests[-1].json, text) == 1
        assert [type(m) for m in h.agent.messages] == [UserMessage, AssistantMessage]
        assert len(of_type(h.records(), UserRecord)) == 1
        h.assert_session_valid()
        h.server.assert_all_consumed()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_withdrawn_message_is_recorded_and_never_sent_again(
    protocol: str, tmp_path: Path
) -> None:
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(WRITE), faults=ErrorEvent(after_ops=1)),
        answer(protocol, "Hi."),
    ) as h:
        await h.send("the withdrawn message")
        assert h.agent.withdraw() == "the withdrawn message"
        assert h.agent.messages == [] and h.agent.pending_user_message() is None
        assert len(of_type(h.records(), WithdrawRecord)) == 1
        h.assert_session_valid()
        assert h.agent.withdraw() is None  # nothing left to take back
        events = await h.send("hello")
        assert events[-1] == LoopEnded("complete")
        body = h.server.requests[-1].json
        assert count_text(body, "the withdrawn message") == 0
        assert count_text(body, "hello") == 1
        h.assert_session_valid()


async def test_retry_with_nothing_unanswered_only_says_so(tmp_path: Path) -> None:
    protocol = "openai-chat"
    async with agent_over(protocol, tmp_path, answer(protocol)) as h:
        await h.send("hi")
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            events = [e async for e in h.agent.retry()]
        assert events == [Notice("there is no unanswered message to retry", "warning")]
        assert len(h.server.requests) == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_call_cut_off_by_a_crash_is_interrupted_on_resume_and_never_rerun(
    protocol: str, tmp_path: Path
) -> None:
    command = "echo ran >> runs.txt; sleep 30"
    calls = call_ops(
        ("call_A", "run_command", {"command": command}),
        ("call_B", "write_file", {"path": "b.txt", "content": "B"}),
    )
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    async with agent_over(
        protocol, tmp_path, Reply(calls), approver=ScriptedApprover(approve(), approve())
    ) as h:
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in h.agent.send("run it"):
                if isinstance(event, ToolStarted):
                    await wait_for(h.workspace / "runs.txt")
                    # What the disk holds at this moment is what a crash would leave.
                    shutil.copy(h.writer.path, crashed / h.writer.path.name)
                    h.agent.cancel()
    copy = crashed / h.writer.path.name
    store = SessionStore(tmp_path / "sessions-after")
    loaded, writer = store.resume(str(copy))
    try:
        assert [r.decision for r in of_type(loaded.records, DecisionRecord)] == ["approve"] * 2
        assert [r.call_id for r in of_type(loaded.records, ToolStartRecord)] == ["call_A"]
        assert of_type(loaded.records, ToolResultRecord) == []
        history, repairs = messages_from_records(loaded.records)
        assert [(r.call_id, r.status, r.output) for r in repairs] == [
            ("call_A", "interrupted", INTERRUPTED),
            ("call_B", "interrupted", INTERRUPTED),
        ]
        for record in repairs:
            writer.append(record, sync=True)
        results = {m.call_id: m.output for m in history if isinstance(m, ToolResultMessage)}
        assert results == {"call_A": INTERRUPTED, "call_B": INTERRUPTED}
        events = await resumed_conversation(protocol, tmp_path, history, writer)
    finally:
        writer.close()
    assert [type(e) for e in events if isinstance(e, ToolStarted)] == []
    assert (h.workspace / "runs.txt").read_text() == "ran\n"  # once, before the crash
    assert not (h.workspace / "b.txt").exists()
    messages, repairs = messages_from_records(store.load(str(copy)).records)
    assert repairs == []
    assert isinstance(messages[-1], AssistantMessage) and messages[-1].text == "Resumed."


async def resumed_conversation(
    protocol: str, tmp_path: Path, history: list[Message], writer: SessionWriter
) -> list[AgentEvent]:
    """The resumed session continues: the next request carries the interrupted results."""
    expected = {"call_A": "interrupted", "call_B": "interrupted"}
    with FakeProvider(protocol, api_key="test-key") as server:
        server.script(answer(protocol, "Resumed."))
        async with httpx.AsyncClient() as client:
            agent = build_agent(
                profile=profile_for(server),
                config=Config(),
                workspace=(tmp_path / "ws").resolve(),
                protected=(),
                client=client,
                approver=ScriptedApprover(),
                policy=ApprovalPolicy(),
                writer=writer,
                history=history,
            )
            async with asyncio.timeout(LOOP_TIMEOUT_S):
                events = [e async for e in agent.send("what happened?")]
        check_order(events)
        assert events[-1] == LoopEnded("complete")
        sent = sent_results(protocol, server.requests[0].json)
        assert {k: v for k, v in sent.items() if k in expected} == {
            k: INTERRUPTED for k in expected
        }
        server.assert_all_consumed()
    return events


async def wait_for(path: Path) -> None:
    for _ in range(250):
        if path.exists():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path.name} never appeared")


async def test_results_are_rebuilt_in_announced_order_whatever_order_they_were_written(
    tmp_path: Path,
) -> None:
    """A denied call's result is written before an approved one that ran; resume must send
    them as the live loop did."""
    protocol = "openai-chat"
    calls = call_ops(
        ("call_A", "write_file", {"path": "a.txt", "content": "A"}),
        ("call_B", "write_file", {"path": "b.txt", "content": "B"}),
    )
    async with agent_over(
        protocol,
        tmp_path,
        Reply(calls),
        answer(protocol, expect=ExpectToolResults({"call_A": "byte", "call_B": "denied"})),
        approver=ScriptedApprover(approve(), deny()),
    ) as h:
        await h.send("write both")
        written = [r.call_id for r in of_type(h.records(), ToolResultRecord)]
        assert written == ["call_B", "call_A"]
        live = [m.call_id for m in h.agent.messages if isinstance(m, ToolResultMessage)]
        assert live == ["call_A", "call_B"]
        h.assert_session_valid()
