"""Subagents through the real loop over the fake provider (agent/subagent.py): the task tool
starts an agent of its own conversation whose answer is the task's result; its calls are
asked through the same approver with the agent named; two read-only tasks run at the same
time; a denied call, Esc, a truncated turn and the depth limit; its records are kept under the
task call and the conversation is rebuilt without them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.call_results import INTERRUPTED
from tui_agent.agent.events import (
    AgentEvent,
    CallDecided,
    LoopEnded,
    Notice,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    event_to_json,
)
from tui_agent.approval import ApprovalMode, Decision, approve, deny
from tui_agent.context.events import ContextUpdate
from tui_agent.export.markdown import render_markdown
from tui_agent.prompting.agents import EXPLORE, AgentBook, AgentDefinition, AgentScan, agent_book
from tui_agent.replay.script import ReplayScript
from tui_agent.replay.text_transcript import transcript_text
from tui_agent.session.records import SubagentRecord, ToolResultRecord, UserRecord
from tui_agent.stream.events import ReasoningDelta, TextDelta
from tui_agent.stream.progress import ToolArgumentsReceived, ToolCallAnnounced

from .agent_helpers import (
    HOLD,
    LOOP_TIMEOUT_S,
    MEET_TOOL,
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    check_order,
    finished,
    of_type,
    sent_results,
)
from .fake_provider import Reply

PROTOCOL = "openai-chat"
WRITER = AgentDefinition("writer", "Writes files.", "You write files.", ("write_file",))
MEETER = AgentDefinition("meeter", "Meets another.", "You meet.", ("meet",))
EVERYTHING = AgentDefinition("helper", "Does anything.", "You help.", None)


def book(*more: AgentDefinition) -> AgentBook:
    return agent_book(AgentScan(more))


def task(call_id: str, agent: str, prompt: str = "find the notes", description: str = "notes"):
    return (call_id, "task", {"description": description, "prompt": prompt, "agent": agent})


def tools_of(request: Any) -> list[str]:
    return sorted(tool["function"]["name"] for tool in request.json.get("tools", []))


def system_of(request: Any) -> str:
    return "\n".join(m["content"] for m in request.json["messages"] if m["role"] == "system")


def _progress(event: AgentEvent) -> bool:
    return isinstance(event, TextDelta | ReasoningDelta | ToolCallAnnounced | ToolArgumentsReceived)


def _replayable(event: AgentEvent) -> bool:
    """What a replay shows again of what the loop told (not its context counts, nor its end)."""
    return not isinstance(event, ContextUpdate | LoopEnded | Notice)


def inner(events: list[AgentEvent], call_id: str) -> list[AgentEvent]:
    return [e.event for e in of_type(events, SubagentEvent) if e.call_id == call_id]


async def test_an_explore_task_answers_with_its_own_context(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve(), approve())
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "explore"))),
        Reply(call_ops(("sub_1", "read_file", {"path": "notes.txt"}))),
        answer(PROTOCOL, "The notes say: the secret word is plum."),
        answer(PROTOCOL, "The word is plum."),
        approver=approver,
        agents=book(),
    ) as h:
        (h.workspace / "notes.txt").write_text("the secret word is plum\n")
        events = await h.send("what do the notes say?")
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
        result = finished(events)["call_T"]
        assert result.output == "The notes say: the secret word is plum."
        assert not result.is_error
        main, sub_first, sub_second, main_last = h.server.requests
        assert "task" in tools_of(main)
        assert tools_of(sub_first) == ["list_dir", "read_file", "search_text"]
        assert system_of(sub_first) == EXPLORE.prompt
        assert "what do the notes say" not in str(sub_first.json)  # a context of its own
        assert sent_results(PROTOCOL, sub_second.json)["sub_1"] == "the secret word is plum\n"
        assert sent_results(PROTOCOL, main_last.json) == {"call_T": result.output}
        assert "plum\\n" not in str(main_last.json)  # the file's text stayed in the subagent
        # The task call was asked as the model's; the subagent's read names the subagent.
        first, second = approver.requests
        assert first.tool_name == "task" and first.origin == ""
        assert second.tool_name == "read_file"
        assert second.origin == "subagent explore · task: notes"
        sub_events = inner(events, "call_T")
        check_order(sub_events)
        assert finished(sub_events)["sub_1"].status == "done"
        # Its records are under the task call; the conversation is rebuilt without them.
        nested = [r for r in h.records() if isinstance(r, SubagentRecord)]
        assert {r.call_id for r in nested} == {"call_T"}
        kinds = [r.record.type for r in nested]
        assert kinds[0] == "user" and "assistant" in kinds and "tool_result" in kinds
        assert isinstance(nested[0].record, UserRecord)
        assert nested[0].record.text == "find the notes"
        h.assert_session_valid()
        tops = [r for r in h.records() if isinstance(r, ToolResultRecord)]
        assert [r.call_id for r in tops] == ["call_T"]
        loaded = h.store.load(h.writer.session_id)
        exported = render_markdown(loaded)
        assert "#### Subagent `explore`" in exported
        assert exported.index("### Tool call `task`") < exported.index("**Task given:**")
        assert exported.index("##### Tool call `read_file` (`sub_1`)") < exported.index(
            "**Result** (done):"
        )
        script = ReplayScript.from_records(loaded.records)
        replayed = [s.event for s in script if isinstance(s.event, SubagentEvent)]
        assert [type(e.event).__name__ for e in replayed if not _progress(e.event)] == [
            type(e).__name__ for e in sub_events if not _progress(e) and _replayable(e)
        ]
        text = transcript_text(script)
        assert "    [subagent explore] call read_file" in text
        as_json = event_to_json(of_type(events, SubagentEvent)[0])
        assert as_json["type"] == "subagent" and as_json["call_id"] == "call_T"
        assert as_json["agent"] == "explore" and as_json["event"]["type"] == "turn_started"


async def test_two_read_only_tasks_run_at_the_same_time(tmp_path: Path) -> None:
    # meet finishes only when the other meet runs meanwhile: the two subagents must overlap.
    a, b = str(tmp_path / "ws" / "a"), str(tmp_path / "ws" / "b")
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_1", "meeter"), task("call_2", "meeter"))),
        # Whichever subagent asks first gets the first of these: each meet waits for the other.
        Reply(call_ops(("m_1", "meet", {"mine": a, "other": b}))),
        Reply(call_ops(("m_1", "meet", {"mine": b, "other": a}))),
        answer(PROTOCOL, "met"),
        answer(PROTOCOL, "met"),
        answer(PROTOCOL, "Both met."),
        mode=ApprovalMode.AUTO_READ,
        tools=[MEET_TOOL],
        agents=book(MEETER),
    ) as h:
        events = await h.send("meet twice")
        results = finished(events)
        assert results["call_1"].output == results["call_2"].output == "met"
        for call_id in ("call_1", "call_2"):
            assert finished(inner(events, call_id))["m_1"].status == "done"
        h.assert_session_valid()


async def test_a_write_task_is_asked_and_a_denied_call_is_told_to_the_subagent(
    tmp_path: Path,
) -> None:
    approver = ScriptedApprover(approve(), deny("not that file"))
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_W", "writer", "write b.txt", "write b"))),
        Reply(call_ops(("w_1", "write_file", {"path": "b.txt", "content": "B"}))),
        answer(PROTOCOL, "I was not allowed to write b.txt."),
        answer(PROTOCOL, "It was denied."),
        approver=approver,
        mode=ApprovalMode.AUTO_READ,
        agents=book(WRITER),
    ) as h:
        events = await h.send("write b")
        first, second = approver.requests
        assert first.tool_name == "task" and first.risk == "write"  # not auto-read
        assert second.origin == "subagent writer · task: write b"
        sub = finished(inner(events, "call_W"))["w_1"]
        assert sub.status == "denied" and "not that file" in sub.output
        assert not (h.workspace / "b.txt").exists()
        assert finished(events)["call_W"].output == "I was not allowed to write b.txt."
        h.assert_session_valid()


async def test_esc_during_a_subagent_cancels_it_and_the_task(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve(), HOLD)
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "explore"))),
        Reply(call_ops(("sub_1", "read_file", {"path": "notes.txt"}))),
        approver=approver,
        agents=book(),
    ) as h:
        events: list[AgentEvent] = []

        async def esc_once_asked() -> None:
            await approver.holding.wait()  # the subagent's read is on the prompt
            h.agent.cancel()

        esc = asyncio.ensure_future(esc_once_asked())
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in h.agent.send("read the notes"):
                events.append(event)
        assert esc.done()
        check_order(events)
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"
        result = finished(events)["call_T"]
        assert result.status == "interrupted" and result.output == INTERRUPTED
        h.assert_session_valid()
        assert len(h.server.requests) == 2  # the model was not sent the results


async def test_a_truncated_subagent_turn_runs_nothing_and_the_task_fails(tmp_path: Path) -> None:
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "writer"))),
        Reply(call_ops(("w_1", "write_file", {"path": "b.txt", "content": "B"})), terminal=False),
        answer(PROTOCOL, "The task failed."),
        approver=ScriptedApprover(approve()),
        agents=book(WRITER),
    ) as h:
        events = await h.send("write b")
        result = finished(events)["call_T"]
        assert result.is_error and result.status == "failed"
        assert "agent writer did not finish: its turn was cut short" in result.output
        assert not (h.workspace / "b.txt").exists()
        assert of_type(inner(events, "call_T"), ToolFinished) == []
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
        h.assert_session_valid()


@pytest.mark.parametrize("depth", [1, 2])
async def test_a_subagent_is_offered_the_task_tool_only_below_the_depth_limit(
    tmp_path: Path, depth: int
) -> None:
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "helper"))),
        answer(PROTOCOL, "helped"),
        answer(PROTOCOL, "Done."),
        mode=ApprovalMode.AUTO_ALL,
        settings={"subagent_depth": depth},
        agents=book(EVERYTHING),
    ) as h:
        await h.send("help")
        sub_request = h.server.requests[1]
        assert ("task" in tools_of(sub_request)) == (depth == 2)
        assert "write_file" in tools_of(sub_request)


async def test_plan_mode_refuses_a_task_of_an_agent_that_can_write(tmp_path: Path) -> None:
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_W", "writer"))),
        answer(PROTOCOL, "Planned."),
        mode=ApprovalMode.PLAN,
        agents=book(WRITER),
    ) as h:
        events = await h.send("plan it")
        result = finished(events)["call_W"]
        assert result.status == "denied" and "plan mode" in result.output
        assert len(h.server.requests) == 2  # no subagent request went out


async def test_an_unknown_agent_is_a_clear_error(tmp_path: Path) -> None:
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "nobody"))),
        answer(PROTOCOL, "No such agent."),
        mode=ApprovalMode.AUTO_READ,
        agents=book(),
    ) as h:
        events = await h.send("go")
        result = finished(events)["call_T"]
        assert result.is_error and "no agent is named 'nobody'; agents: explore" in result.output


def test_no_task_tool_at_depth_zero_and_none_without_agents() -> None:
    from tui_agent.agent.subagent import Delegation

    assert not Delegation(book(), 0).offers_task
    assert Delegation(book(), 1).offers_task
    assert [a.name for a in book().agents] == ["explore"]
    assert not isinstance(TurnStarted(1), SubagentEvent)


async def test_a_mode_change_decides_a_subagents_open_question_again(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve(), HOLD)
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "explore"))),
        Reply(call_ops(("sub_1", "list_dir", {"path": "."}))),
        answer(PROTOCOL, "Listed."),
        answer(PROTOCOL, "Done."),
        approver=approver,
        agents=book(),
    ) as h:
        assert h.delegation is not None
        delegation = h.delegation

        async def switch_once_asked() -> None:
            await approver.holding.wait()
            h.agent.calls.policy.mode = ApprovalMode.AUTO_READ
            delegation.mode_changed()

        switch = asyncio.ensure_future(switch_once_asked())
        events = await h.send("list")
        assert switch.done()
        sub = inner(events, "call_T")
        decisions = [e for e in sub if isinstance(e, CallDecided)]
        assert [(d.decision, d.by) for d in decisions] == [("approve", "policy")]
        assert finished(sub)["sub_1"].status == "done"
        assert finished(events)["call_T"].output == "Listed."


async def test_two_read_tasks_run_together_and_a_write_task_after_them(tmp_path: Path) -> None:
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(
            call_ops(
                task("call_1", "explore", description="one"),
                task("call_2", "explore", description="two"),
                task("call_W", "writer", "write b.txt", "write b"),
            )
        ),
        answer(PROTOCOL, "explored"),
        answer(PROTOCOL, "explored"),
        Reply(call_ops(("w_1", "write_file", {"path": "b.txt", "content": "B"}))),
        answer(PROTOCOL, "wrote b.txt"),
        answer(PROTOCOL, "All done."),
        mode=ApprovalMode.AUTO_ALL,
        agents=book(WRITER),
    ) as h:
        events = await h.send("explore twice, then write")
        order = [
            (type(e).__name__, e.call_id)
            for e in events
            if isinstance(e, ToolStarted | ToolFinished)
        ]
        first_end = min(
            order.index(("ToolFinished", "call_1")), order.index(("ToolFinished", "call_2"))
        )
        assert order.index(("ToolStarted", "call_2")) < first_end  # the reads ran together
        assert order.index(("ToolStarted", "call_W")) > max(
            order.index(("ToolFinished", "call_1")), order.index(("ToolFinished", "call_2"))
        )
        assert (h.workspace / "b.txt").read_text() == "B"
        assert finished(events)["call_W"].output == "wrote b.txt"
        h.assert_session_valid()


async def test_trusted_agents_join_the_task_tools_list_and_a_model_is_its_own(
    tmp_path: Path,
) -> None:
    from tui_agent.wiring.subagents import offer_agents

    small = AgentDefinition("small", "A small model.", "Be brief.", ("list_dir",), model="tiny")
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "small"))),
        answer(PROTOCOL, "brief"),
        answer(PROTOCOL, "Done."),
        mode=ApprovalMode.AUTO_READ,
        agents=book(),
    ) as h:
        assert h.delegation is not None
        spec = h.agent.calls.registry.get("task")
        assert spec is not None and "- small:" not in spec.described()
        offer_agents(h.agent, h.delegation, (small,))
        spec = h.agent.calls.registry.get("task")
        assert spec is not None and "- small: A small model." in spec.described()
        assert any(t.name == "task" and "- small:" in t.description for t in h.agent.tools)
        events = await h.send("be brief")
        assert finished(events)["call_T"].output == "brief"
        assert h.server.requests[1].json["model"] == "tiny"
        assert h.server.requests[2].json["model"] == h.server.requests[0].json["model"]


async def test_esc_while_a_subagents_answer_streams_cancels_the_task(tmp_path: Path) -> None:
    from .fake_provider.steps import StallBeforeTerminal

    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "explore"))),
        Reply([("text", "Half an answer")], stop="stop", faults=StallBeforeTerminal()),
        approver=ScriptedApprover(approve()),
        agents=book(),
    ) as h:
        events: list[AgentEvent] = []
        async with asyncio.timeout(LOOP_TIMEOUT_S):
            async for event in h.agent.send("explore"):
                events.append(event)
                if isinstance(event, SubagentEvent) and isinstance(event.event, TextDelta):
                    h.agent.cancel()
        h.server.release()
        check_order(events)
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"
        result = finished(events)["call_T"]
        assert result.status == "interrupted" and result.output == INTERRUPTED
        sub = inner(events, "call_T")
        assert not any(isinstance(e, TurnCompleted) for e in sub)  # the half turn was not kept
        h.assert_session_valid()
        nested = [r.record.type for r in h.records() if isinstance(r, SubagentRecord)]
        assert "assistant" not in nested


async def test_esc_on_a_subagents_question_stops_the_whole_turn(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve(), Decision("cancel"))
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "explore"))),
        Reply(call_ops(("sub_1", "read_file", {"path": "notes.txt"}))),
        approver=approver,
        agents=book(),
    ) as h:
        events = await h.send("read the notes")
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"
        result = finished(events)["call_T"]
        assert result.status == "interrupted" and result.output == INTERRUPTED
        assert finished(inner(events, "call_T"))["sub_1"].status == "cancelled"
        assert len(h.server.requests) == 2  # neither model was sent the results
        h.assert_session_valid()


def test_a_resumed_sessions_cost_counts_its_subagents_turns() -> None:
    from tui_agent.session.records import AssistantRecord
    from tui_agent.wiring.subagents import subagent_turns

    turn = AssistantRecord(
        protocol=PROTOCOL,
        model="m",
        text="t",
        reasoning="",
        tool_calls=[],
        stop_reason="stop",
        usage=None,
        response_id=None,
        raw=[],
    )
    deep = SubagentRecord(call_id="c2", agent="b", record=turn)
    records = [
        SubagentRecord(call_id="c1", agent="a", record=turn),
        SubagentRecord(call_id="c1", agent="a", record=deep),
        SubagentRecord(call_id="c1", agent="a", record=UserRecord(text="go")),
    ]
    assert subagent_turns(records) == [turn, turn]


async def test_an_always_allow_rule_does_not_give_a_subagent_another_tool(tmp_path: Path) -> None:
    from tui_agent.approval import AllowTool

    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "explore"))),
        Reply(call_ops(("sub_W", "write_file", {"path": "b.txt", "content": "B"}))),
        answer(PROTOCOL, "I cannot write."),
        answer(PROTOCOL, "Done."),
        mode=ApprovalMode.AUTO_READ,
        rules=[AllowTool("write_file")],
        agents=book(),
    ) as h:
        events = await h.send("write b")
        sub = finished(inner(events, "call_T"))["sub_W"]
        assert sub.status == "invalid" and "unknown tool 'write_file'" in sub.output
        assert not (h.workspace / "b.txt").exists()


async def test_below_the_depth_limit_a_subagent_starts_its_own_task(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve(), approve(), approve())
    async with agent_over(
        PROTOCOL,
        tmp_path,
        Reply(call_ops(task("call_T", "helper", "delegate it", "outer"))),
        Reply(call_ops(task("inner_T", "explore", "list it", "inner"))),
        Reply(call_ops(("deep_L", "list_dir", {"path": "."}))),
        answer(PROTOCOL, "listed"),
        answer(PROTOCOL, "the inner task listed it"),
        answer(PROTOCOL, "Done."),
        approver=approver,
        settings={"subagent_depth": 2},
        agents=book(EVERYTHING),
    ) as h:
        events = await h.send("go")
        assert finished(events)["call_T"].output == "the inner task listed it"
        outer = inner(events, "call_T")
        assert finished(outer)["inner_T"].output == "listed"
        deep = [e.event for e in of_type(outer, SubagentEvent) if e.call_id == "inner_T"]
        assert finished(deep)["deep_L"].status == "done"
        origins = [r.origin for r in approver.requests]
        assert origins == ["", "subagent helper · task: outer", "subagent explore · task: inner"]
        nested = [r for r in h.records() if isinstance(r, SubagentRecord)]
        two_deep = [r.record for r in nested if isinstance(r.record, SubagentRecord)]
        assert two_deep and {r.call_id for r in two_deep} == {"inner_T"}
        h.assert_session_valid()


def task_description(request: Any) -> str:
    (tool,) = [t for t in request.json["tools"] if t["function"]["name"] == "task"]
    return str(tool["function"]["description"])


async def test_an_mcp_tool_change_after_trusting_agents_keeps_them_listed(tmp_path: Path) -> None:
    """The task tool's description is the agents on offer now, whatever rebuilt the tool list
    since (an MCP server's tools changing kept the one from before the trust)."""
    from tui_agent.agent.mcp_tools import attach_servers
    from tui_agent.mcp.servers import McpEvent
    from tui_agent.wiring.subagents import offer_agents

    small = AgentDefinition("small", "A small helper.", "Be brief.", ("list_dir",))
    async with agent_over(
        PROTOCOL, tmp_path, answer(PROTOCOL, "Hi."), answer(PROTOCOL, "Hi again."), agents=book()
    ) as h:
        assert h.delegation is not None
        servers = attach_servers(h.agent, {}, h.workspace)
        offer_agents(h.agent, h.delegation, (small,))
        await h.send("hello")
        servers._emit(McpEvent("changed"))  # a server's tools changed
        await h.send("hello again")
        first, second = h.server.requests
        assert "- small: A small helper." in task_description(first)
        assert "- small: A small helper." in task_description(second)
        assert any(t.name == "task" and "- small:" in t.description for t in h.agent.tools)


async def test_plan_mode_offers_only_the_read_only_agents(tmp_path: Path) -> None:
    async with agent_over(
        PROTOCOL,
        tmp_path,
        answer(PROTOCOL, "Planned."),
        answer(PROTOCOL, "Done."),
        mode=ApprovalMode.PLAN,
        agents=book(WRITER, EVERYTHING),
    ) as h:
        await h.send("plan it")
        h.agent.calls.policy.mode = ApprovalMode.ASK
        await h.send("do it")
        planning, asking = (task_description(r) for r in h.server.requests)
        assert "- explore:" in planning
        assert "- writer:" not in planning and "- helper:" not in planning
        assert "- writer: Writes files." in asking and "- helper: Does anything." in asking
