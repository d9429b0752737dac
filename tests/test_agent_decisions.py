"""The user's decisions through the real loop: approve, deny, deny with a reason, edit, cancel;
invalid calls never offered; a decision bound to the digest of what was shown and ran."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx
import pytest

from tui_agent.agent.call_results import edited_note
from tui_agent.agent.calls import CallRunner
from tui_agent.agent.events import CallDecided, CallInvalid, LoopEnded, Notice, ToolStarted
from tui_agent.agent.loop import Agent
from tui_agent.agent.recorder import SessionRecorder
from tui_agent.approval import ApprovalMode, ApprovalPolicy, approve, cancel, deny, edit
from tui_agent.providers import RequestSettings, ToolSchema
from tui_agent.session.records import DecisionRecord, ToolResultRecord, ToolStartRecord
from tui_agent.tools import ToolContext, builtin_registry

from .agent_helpers import (
    KEY,
    PROTOCOLS,
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    check_order,
    decided,
    finished,
    of_type,
    sent_results,
)
from .fake_provider import ExpectToolResults, FakeProvider, Reply


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_approved_call_runs_bound_to_the_digest_of_what_was_shown(
    protocol: str, tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("one\ntwo\nthree\n")
    # Spacing and key order as a model might send them; the canonical form is what is shown.
    spelled = '{ "path" : "a.txt",  "limit": 2 }'
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "read_file", spelled))),
        answer(protocol, expect=ExpectToolResults({"call_A": "showed lines 1-2"})),
        approver=ScriptedApprover(approve()),
    ) as h:
        events = await h.send("read a.txt")
        [request] = h.approver.requests
        assert request.call_id == "call_A" and request.tool_name == "read_file"
        assert request.canonical == '{"limit":2,"path":"a.txt"}'
        assert request.digest == sha256(request.canonical)
        assert (request.position, request.total, request.risk) == (1, 1, "read")
        assert dict(request.arguments) == {"path": "a.txt", "limit": 2}
        assert decided(events)["call_A"].by == "user"
        assert finished(events)["call_A"].status == "done"
        assert events[-1] == LoopEnded("complete")
        records = h.records()
        [decision] = of_type(records, DecisionRecord)
        [start] = of_type(records, ToolStartRecord)
        assert (decision.call_id, decision.decision, decision.digest) == (
            "call_A",
            "approve",
            request.digest,
        )
        assert (start.call_id, start.digest) == ("call_A", request.digest)
        h.assert_session_valid()
        h.server.assert_all_consumed()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_deny_and_deny_with_reason_are_the_results_and_the_turn_goes_on(
    protocol: str, tmp_path: Path
) -> None:
    calls = call_ops(
        ("call_A", "write_file", {"path": "a.txt", "content": "A"}),
        ("call_B", "write_file", {"path": "b.txt", "content": "B"}),
    )
    expected = {"call_A": "denied by user", "call_B": "denied by user: use notes/ instead"}
    async with agent_over(
        protocol,
        tmp_path,
        Reply(calls),
        answer(protocol, expect=ExpectToolResults(expected)),
        approver=ScriptedApprover(deny(), deny("use notes/ instead")),
    ) as h:
        events = await h.send("write two files")
        assert [r.call_id for r in h.approver.requests] == ["call_A", "call_B"]
        assert [(r.position, r.total) for r in h.approver.requests] == [(1, 2), (2, 2)]
        assert {k: (e.status, e.output) for k, e in finished(events).items()} == {
            k: ("denied", v) for k, v in expected.items()
        }
        assert decided(events)["call_B"].reason == "use notes/ instead"
        assert not of_type(events, ToolStarted)
        assert not (h.workspace / "a.txt").exists() and not (h.workspace / "b.txt").exists()
        assert events[-1] == LoopEnded("complete")
        h.assert_session_valid()
        h.server.assert_all_consumed()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_edited_arguments_are_validated_run_and_told_to_the_model(
    protocol: str, tmp_path: Path
) -> None:
    edited = '{"content": "safe", "path": "notes/b.txt"}'
    canonical = '{"content":"safe","path":"notes/b.txt"}'
    note = edited_note(canonical)
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "write_file", {"path": "a.txt", "content": "risky"}))),
        # (gemini's results arrive as JSON, so the expectation avoids quotes)
        answer(protocol, expect=ExpectToolResults({"call_A": "the user edited the arguments"})),
        approver=ScriptedApprover(edit(edited)),
    ) as h:
        events = await h.send("write it")
        assert decided(events)["call_A"].decision == "edit"
        result = finished(events)["call_A"]
        assert result.status == "done" and result.output.startswith(note)
        assert not (h.workspace / "a.txt").exists()
        assert (h.workspace / "notes" / "b.txt").read_text() == "safe"
        [decision] = of_type(h.records(), DecisionRecord)
        [start] = of_type(h.records(), ToolStartRecord)
        assert decision.decision == "edit" and decision.arguments == canonical
        assert decision.digest == start.digest == sha256(canonical)
        # The conversation keeps the model's own call; only the result says what changed.
        assert json.loads(h.agent.messages[1].tool_calls[0].arguments)["path"] == "a.txt"
        sent = sent_results(protocol, h.server.requests[1].json)
        assert sent["call_A"].startswith(note)
        h.assert_session_valid()
        h.server.assert_all_consumed()


async def test_an_invalid_edit_is_reported_and_the_call_offered_again(tmp_path: Path) -> None:
    protocol = "openai-chat"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "write_file", {"path": "a.txt", "content": "A"}))),
        answer(protocol, expect=ExpectToolResults({"call_A": "1 byte written"})),
        approver=ScriptedApprover(edit('{"path": 5, "content": "x"}'), edit("{oops"), approve()),
    ) as h:
        events = await h.send("write it")
        errors = [e.error for e in of_type(events, CallInvalid)]
        assert len(errors) == 2 and all(e.startswith("edited: ") for e in errors)
        assert "path" in errors[0] and "not valid JSON" in errors[1]
        # Offered again each time exactly as the model sent it.
        assert [r.canonical for r in h.approver.requests] == ['{"content":"A","path":"a.txt"}'] * 3
        assert (h.workspace / "a.txt").read_text() == "A"
        assert not finished(events)["call_A"].output.startswith("[the user edited")
        assert events[-1] == LoopEnded("complete")
        h.assert_session_valid()


async def test_edits_invalid_too_many_times_deny_the_call(tmp_path: Path) -> None:
    protocol = "anthropic"
    bad = [edit('{"path": 1, "content": "x"}') for _ in range(4)]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "write_file", {"path": "a.txt", "content": "A"}))),
        answer(protocol, expect=ExpectToolResults({"call_A": "invalid too many times"})),
        approver=ScriptedApprover(*bad),
    ) as h:
        events = await h.send("write it")
        assert len(h.approver.requests) == 4
        assert finished(events)["call_A"].status == "denied"
        assert not (h.workspace / "a.txt").exists()
        h.assert_session_valid()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_cancel_stops_the_turn_every_call_gets_a_result_and_the_loop_waits(
    protocol: str, tmp_path: Path
) -> None:
    calls = call_ops(
        ("call_A", "write_file", {"path": "a.txt", "content": "A"}),
        ("call_B", "write_file", {"path": "b.txt", "content": "B"}),
        ("call_C", "write_file", {"path": "c.txt", "content": "C"}),
    )
    cancelled = {"call_A": "cancelled by user", "call_B": "cancelled by user"}
    cancelled["call_C"] = "cancelled by user"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(calls),
        answer(protocol, "Understood."),
        approver=ScriptedApprover(approve(), cancel()),
    ) as h:
        events = await h.send("write three files")
        assert [r.call_id for r in h.approver.requests] == ["call_A", "call_B"]
        assert events[-1].outcome == "cancelled"
        assert {k: e.status for k, e in finished(events).items()} == dict.fromkeys(
            cancelled, "cancelled"
        )
        assert [(e.decision, e.by) for e in of_type(events, CallDecided)] == [
            ("approve", "user"),
            ("cancel", "user"),
            ("cancel", "user"),
        ]
        assert not of_type(events, ToolStarted)
        assert not list(h.workspace.iterdir())
        assert len(h.server.requests) == 1  # the results were not sent on by themselves
        h.assert_session_valid()
        events = await h.send("never mind")
        assert events[-1] == LoopEnded("complete")
        sent = sent_results(protocol, h.server.requests[1].json)
        assert sent == cancelled
        h.server.assert_all_consumed()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_invalid_calls_are_never_offered_and_the_model_gets_the_error(
    protocol: str, tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("hello\n")
    calls = call_ops(
        ("call_U", "delete_everything", {}),
        ("call_S", "read_file", {"path": 5}),
        ("call_X", "read_file", {"path": "a.txt", "extra": True}),
        ("call_V", "read_file", {"path": "a.txt"}),
    )
    expected = {
        "call_U": "unknown tool 'delete_everything'",
        "call_S": "invalid arguments for read_file: path",
        "call_X": "unknown argument",
        "call_V": "hello",
    }
    async with agent_over(
        protocol,
        tmp_path,
        Reply(calls),
        answer(protocol, expect=ExpectToolResults(expected)),
        approver=ScriptedApprover(approve()),
    ) as h:
        events = await h.send("go")
        assert [r.call_id for r in h.approver.requests] == ["call_V"]
        assert h.approver.requests[0].total == 1
        invalid = {e.call_id: e.error for e in of_type(events, CallInvalid)}
        assert sorted(invalid) == ["call_S", "call_U", "call_X"]
        results = finished(events)
        for call_id, error in invalid.items():
            assert results[call_id].status == "invalid" and results[call_id].output == error
        assert [e.call_id for e in of_type(events, ToolStarted)] == ["call_V"]
        h.assert_session_valid()
        h.server.assert_all_consumed()


@pytest.mark.parametrize(
    "arguments",
    ['{"path": "a.txt"', '{"path": "a.txt", "path": "b.txt"}', '["a.txt"]', '{"path": NaN}'],
)
async def test_unparseable_arguments_are_invalid_even_when_everything_is_auto_approved(
    arguments: str, tmp_path: Path
) -> None:
    protocol = "openai-chat"  # gemini carries arguments as objects, so not these strings
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "write_file", arguments))),
        answer(protocol, expect=ExpectToolResults({"call_A": "arguments"})),
        mode=ApprovalMode.AUTO_ALL,
    ) as h:
        events = await h.send("go")
        assert [e.call_id for e in of_type(events, CallInvalid)] == ["call_A"]
        assert finished(events)["call_A"].status == "invalid"
        assert not of_type(events, CallDecided) and not list(h.workspace.iterdir())
        [record] = of_type(h.records(), DecisionRecord)
        assert record.decision == "invalid"
        h.assert_session_valid()


async def test_the_prompt_gets_a_copy_it_cannot_change(tmp_path: Path) -> None:
    protocol = "openai-responses"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "write_file", {"path": "a.txt", "content": "A"}))),
        answer(protocol),
        approver=ScriptedApprover(approve()),
    ) as h:
        await h.send("go")
        [request] = h.approver.requests
        with pytest.raises(TypeError):
            request.arguments["path"] = "elsewhere.txt"  # type: ignore[index]
        assert (h.workspace / "a.txt").read_text() == "A"


async def test_a_broken_prompt_cancels_the_turn_and_keeps_the_session_valid(
    tmp_path: Path,
) -> None:
    protocol = "gemini"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "write_file", {"path": "a.txt", "content": "A"}))),
        approver=ScriptedApprover(RuntimeError("the widget went away")),
    ) as h:
        events = await h.send("go")
        [notice] = of_type(events, Notice)
        assert notice.level == "error" and "the widget went away" in notice.text
        assert events[-1].outcome == "cancelled"
        assert finished(events)["call_A"].status == "cancelled"
        [result] = of_type(h.records(), ToolResultRecord)
        assert result.status == "cancelled"
        h.assert_session_valid()


async def test_arguments_too_large_to_show_are_refused_even_when_all_is_auto_approved(
    tmp_path: Path,
) -> None:
    """Built by hand (Agent and CallRunner), with a small limit on what can be shown."""
    protocol = "openai-chat"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    registry = builtin_registry()
    recorder = SessionRecorder(None)
    big = ("call_A", "write_file", {"path": "big.txt", "content": "x" * 5000})
    small = ("call_B", "write_file", {"path": "small.txt", "content": "x"})
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(call_ops(big, small)),
            answer(protocol, expect=ExpectToolResults({"call_A": "too large", "call_B": "byte"})),
        )
        async with httpx.AsyncClient() as client:
            runner = CallRunner(
                registry=registry,
                context=ToolContext(workspace=workspace.resolve()),
                policy=ApprovalPolicy(ApprovalMode.AUTO_ALL),
                approver=ScriptedApprover(),
                recorder=recorder,
                output_cap=64 * 1024,
                max_argument_bytes=1000,
            )
            agent = Agent(
                protocol=protocol,
                provider="test",
                request=RequestSettings(model="m", base_url=server.base_url, api_key=KEY),
                client=client,
                calls=runner,
                tools=[ToolSchema(*schema) for schema in registry.schemas()],
                recorder=recorder,
            )
            events = [e async for e in agent.send("write")]
        check_order(events)
        refused = decided(events)["call_A"]
        assert (refused.decision, refused.by) == ("refused", "policy")
        assert finished(events)["call_A"].status == "denied"
        assert sorted(p.name for p in workspace.iterdir()) == ["small.txt"]
        assert events[-1] == LoopEnded("complete")
