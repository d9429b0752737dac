"""The approval binds the sandbox: what the prompt shows is what the command runs under, a mode
change after approval refuses the call, and running unprotected needs a confirmation once."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tui_agent.agent.call_sandbox import SandboxGate
from tui_agent.agent.calls import CallRunner
from tui_agent.agent.events import AgentEvent, Notice
from tui_agent.agent.recorder import SessionRecorder
from tui_agent.approval import ApprovalMode, ApprovalPolicy, ApprovalRequest, Decision, approve
from tui_agent.approval.decision import edit
from tui_agent.approval.rules import SessionRules
from tui_agent.sandbox import SandboxMode, SandboxPolicy, detect
from tui_agent.sandbox.binding import bound_digest
from tui_agent.stream.turn import ToolCall
from tui_agent.tools import ToolContext, builtin_registry

from .agent_helpers import ScriptedApprover

OFF = SandboxPolicy(mode=SandboxMode.OFF)


def runner(tmp_path: Path, approver: object, mode: ApprovalMode = ApprovalMode.ASK) -> CallRunner:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return CallRunner(
        registry=builtin_registry(),
        context=ToolContext(workspace=workspace.resolve()),
        policy=ApprovalPolicy(mode, SessionRules()),
        approver=approver,  # type: ignore[arg-type]
        recorder=SessionRecorder(None),
        output_cap=65536,
        max_argument_bytes=100_000,
    )


def command(text: str, call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name="run_command", arguments=json.dumps({"command": text}))


async def test_the_request_shows_the_mode_and_its_digest_binds_it(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve())
    calls = runner(tmp_path, approver)
    events: list[AgentEvent] = []
    done = await calls.run_round((command("echo hi > made.txt"),), events.append)
    request = approver.requests[0]
    assert request.sandbox == "workspace-write, no network"
    assert request.sandbox_warning == ""
    assert done.results[0].status == "done"
    assert bound_digest("x", SandboxPolicy()) != bound_digest("x", OFF)
    assert bound_digest("x", None) == "x"  # a tool that runs no program: the arguments' digest


class SwitchesModeThenApproves:
    """Approves, but the mode changes between the approval and the run (the palette)."""

    def __init__(self) -> None:
        self.calls: CallRunner | None = None
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        assert self.calls is not None
        self.calls.set_sandbox(OFF)
        return approve()


async def test_a_mode_change_after_approval_refuses_the_call(tmp_path: Path) -> None:
    approver = SwitchesModeThenApproves()
    calls = runner(tmp_path, approver)
    approver.calls = calls
    done = await calls.run_round((command("echo hi > made.txt"),), lambda event: None)
    result = done.results[0]
    assert result.status == "denied"
    assert "the sandbox changed after the call was approved" in result.output
    assert "approved under workspace-write, no network, now off (unconfined)" in result.output
    assert not (calls.context.workspace / "made.txt").exists()


async def test_off_mode_warns_and_asks_once_a_session_to_confirm(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve(), approve(), approve())
    calls = runner(tmp_path, approver)
    calls.set_sandbox(OFF)
    first = await calls.run_round((command("echo one"),), lambda event: None)
    second = await calls.run_round((command("echo two", "c2"),), lambda event: None)
    assert [r.status for r in (*first.results, *second.results)] == ["done", "done"]
    shown = approver.requests
    assert len(shown) == 3  # the first call was confirmed, the second was not asked twice
    assert shown[0].sandbox == "off (unconfined)"
    assert "runs unconfined" in shown[0].sandbox_warning
    assert shown[1].confirm.startswith("Confirm once for this session")
    assert shown[2].confirm == ""


async def test_denying_the_confirmation_does_not_run_the_call(tmp_path: Path) -> None:
    approver = ScriptedApprover(approve(), Decision("deny"))
    calls = runner(tmp_path, approver)
    calls.set_sandbox(OFF)
    done = await calls.run_round((command("echo x > made.txt"),), lambda event: None)
    assert done.results[0].status == "denied"
    assert not (calls.context.workspace / "made.txt").exists()


async def test_an_edit_that_runs_unprotected_is_confirmed_too(tmp_path: Path) -> None:
    """An edit on the first question cannot skip the extra confirmation."""
    edited = edit(json.dumps({"command": "echo edited > made.txt"}))
    approver = ScriptedApprover(edited, Decision("deny"), edited, approve())
    calls = runner(tmp_path, approver)
    calls.set_sandbox(OFF)
    denied = await calls.run_round((command("echo x > other.txt"),), lambda event: None)
    assert denied.results[0].status == "denied"
    assert approver.requests[1].confirm.startswith("Confirm once for this session")
    assert not (calls.context.workspace / "made.txt").exists()
    done = await calls.run_round((command("echo x > other.txt", "c2"),), lambda event: None)
    assert done.results[0].status == "done"  # confirmed: the edited arguments ran
    assert (calls.context.workspace / "made.txt").read_text() == "edited\n"
    assert not (calls.context.workspace / "other.txt").exists()


async def test_a_missing_protection_is_a_warning_and_an_auto_approval_says_so(
    tmp_path: Path,
) -> None:
    approver = ScriptedApprover()
    calls = runner(tmp_path, approver, ApprovalMode.AUTO_ALL)
    calls.gate = SandboxGate(replace(detect(), landlock_abi=0, landlock_reason="no Landlock"))
    events: list[AgentEvent] = []
    await calls.run_round((command("true"),), events.append)
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("protection missing on this machine: file system" in text for text in notices)
