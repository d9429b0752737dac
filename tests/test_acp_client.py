"""tui-agent as an ACP client, against real agent processes on the official SDK: the SDK's own
example agent (tests/acp_agents/sdk_example_agent.py, as its authors wrote it) and a scripted
one (tests/acp_agents/scripted_agent.py) whose moves are known: a tool call that needs
permission, approved and denied, a cancel mid-stream, a file write that a rewind undoes.

Headless through ``tui-agent run --agent`` (a subprocess, in a home of its own), and in
process through ``AcpSession`` for what needs timing (Esc mid-stream, a pending question).
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tui_agent.acp_client.session import AcpSession
from tui_agent.agent.events import (
    CallDecided,
    LoopEnded,
    PlanUpdated,
    ToolFinished,
    TurnCompleted,
    TurnTruncated,
)
from tui_agent.approval.approver import ApprovalRequest
from tui_agent.approval.decision import Decision, approve, deny
from tui_agent.approval.policy import ApprovalPolicy
from tui_agent.checkpoints import Checkpointer
from tui_agent.stream.events import TextDelta

from .run_helpers import Home, JsonLines

AGENTS = Path(__file__).resolve().parent / "acp_agents"
EXAMPLE = [sys.executable, str(AGENTS / "sdk_example_agent.py")]
SCRIPTED = [sys.executable, str(AGENTS / "scripted_agent.py")]


def _agents_config(home: Home) -> None:
    lines = []
    for name, argv in (("example", EXAMPLE), ("scripted", SCRIPTED)):
        lines.append(f"[agents.{name}]")
        lines.append(f"command = {json.dumps(argv)}")
    lines.append('env = { SCRIPTED_AGENT = "1" }')
    home.write_config("\n".join(lines) + "\n")


def _run(home: Home, prompt: str, *extra: str, approve: str = "never") -> Any:
    argv = [sys.executable, "-m", "tui_agent.cli", "run", "--agent", extra[0], prompt]
    argv += ["--workspace", str(home.workspace), "--approve", approve, *extra[1:]]
    return home.run_argv(argv, key=None)


@pytest.fixture
def agents(home: Home) -> Home:
    _agents_config(home)
    return home


def test_the_sdk_example_agent_answers_through_run(agents: Home) -> None:
    done = _run(agents, "hello there", "example", "--json")
    assert done.code == 0, done.stderr
    events = done.events()
    text = "".join(e["text"] for e in events if e["type"] == "text")
    assert text == "Client sent:hello there"
    assert [e["type"] for e in events][-2:] == ["turn_completed", "loop_ended"]
    assert events[-1]["outcome"] == "complete"
    records = agents.records()
    assert records[0]["protocol"] == "acp" and records[0]["profile"] == "agent:example"
    (answer,) = [r for r in records if r["type"] == "assistant"]
    assert answer["text"] == "Client sent:hello there"
    assert answer["raw"], "the agent's updates are kept for replay"
    exported = agents.run_argv(
        [sys.executable, "-m", "tui_agent.cli", "export", records[0]["id"], "-o", "-"], key=None
    )
    assert exported.code == 0 and "Client sent:hello there" in exported.stdout
    replayed = agents.run_argv(
        [sys.executable, "-m", "tui_agent.cli", "replay", "--headless", records[0]["id"]],
        key=None,
    )
    assert replayed.code == 0 and "Client sent:hello there" in replayed.stdout
    assert "cannot decode" not in replayed.stdout and "shown as saved" not in replayed.stdout


def test_a_permission_approved_writes_and_a_rewind_undoes_it(agents: Home) -> None:
    done = _run(agents, "write notes/a.txt hello world", "scripted", "--json", approve="all")
    assert done.code == 0, done.stderr
    target = agents.workspace / "notes" / "a.txt"
    assert target.read_text() == "hello world"
    events = done.events()
    decided = [e for e in events if e["type"] == "call_decided"]
    assert [(e["decision"], e["by"]) for e in decided] == [("approve", "policy")]
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "done" and "+hello world" in finished["output"]
    kinds = [r["type"] for r in agents.records()]
    assert kinds.index("checkpoint") < kinds.index("checkpoint_done") < kinds.index("tool_result")
    session = agents.records()[0]["id"]
    rewound = agents.run_argv(
        [sys.executable, "-m", "tui_agent.cli", "rewind", session, "--to", "1", "--files-only"],
        key=None,
    )
    assert rewound.code == 0, rewound.stderr
    assert not target.exists()


def test_a_permission_denied_writes_nothing(agents: Home) -> None:
    done = _run(agents, "write b.txt hi", "scripted", "--json", approve="never")
    assert done.code == 0, done.stderr
    assert not (agents.workspace / "b.txt").exists()
    events = done.events()
    (decided,) = [e for e in events if e["type"] == "call_decided"]
    assert decided["decision"] == "deny" and decided["by"] == "policy"
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "denied"
    assert "Not written" in "".join(e["text"] for e in events if e["type"] == "text")


def test_a_write_outside_the_workspace_is_refused(agents: Home) -> None:
    outside = agents.root / "outside.txt"
    done = _run(agents, f"write {outside} x", "scripted", "--json", approve="all")
    assert done.code == 0, done.stderr
    assert not outside.exists()
    assert "The write was refused." in "".join(
        e["text"] for e in done.events() if e["type"] == "text"
    )


def test_an_unknown_agent_is_a_usage_error(agents: Home) -> None:
    done = _run(agents, "hi", "nobody")
    assert done.code == 1
    assert "no agent named 'nobody'" in done.stderr and "example, scripted" in done.stderr


def test_interrupting_run_mid_stream_keeps_no_assistant_turn(agents: Home) -> None:
    argv = [sys.executable, "-m", "tui_agent.cli", "run", "--agent", "scripted", "stream"]
    argv += ["--workspace", str(agents.workspace), "--json"]
    process = subprocess.Popen(
        argv,
        cwd=agents.workspace,
        env=agents.env(None),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with JsonLines(process) as lines:
        lines.wait_for("text", timeout=20.0)
        process.send_signal(signal.SIGINT)
        done = lines.finish()
    assert done.code == 2
    kinds = [r["type"] for r in agents.records()]
    assert "user" in kinds and "assistant" not in kinds


# -- in process: Esc mid-stream, the armed question's answers -----------------------------


class _Writer:
    degraded = None

    def __init__(self) -> None:
        self.records: list[Any] = []

    def append(self, record: Any, *, sync: bool | None = None) -> Any:
        self.records.append(record)
        return record


class _Answers:
    """An approver that answers each question with the next decision, and keeps the requests."""

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)
        self.asked: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.decisions.pop(0)


def _session(tmp_path: Path, approver: Any, writer: _Writer, **extra: Any) -> AcpSession:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return AcpSession(
        "scripted",
        SCRIPTED,
        {},
        workspace=workspace,
        approver=approver,
        policy=ApprovalPolicy(),
        writer=writer,
        checkpointer=Checkpointer(workspace, root=tmp_path / "checkpoints"),
        **extra,
    )


async def _collect(session: AcpSession, text: str) -> list[Any]:
    return [event async for event in session.send(text)]


async def test_the_question_shows_the_agents_call_and_y_allows_once(tmp_path: Path) -> None:
    writer, answers = _Writer(), _Answers(approve())
    session = _session(tmp_path, answers, writer)
    await session.start()
    try:
        events = await _collect(session, "write a.txt one")
    finally:
        await session.close()
    (request,) = answers.asked
    assert request.tool_name == "Write a.txt" and request.risk == "write"
    assert request.arguments["input"] == {"path": "a.txt", "content": "one"}
    assert (tmp_path / "ws" / "a.txt").read_text() == "one"
    decided = [e for e in events if isinstance(e, CallDecided)]
    assert [(d.decision, d.by) for d in decided] == [("approve", "user")]
    assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"


async def test_n_on_the_question_rejects_and_the_call_is_denied(tmp_path: Path) -> None:
    writer, answers = _Writer(), _Answers(deny())
    session = _session(tmp_path, answers, writer)
    await session.start()
    try:
        events = await _collect(session, "write a.txt one")
    finally:
        await session.close()
    assert not (tmp_path / "ws" / "a.txt").exists()
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.status == "denied"
    results = [r for r in writer.records if r.type == "tool_result"]
    assert [r.status for r in results] == ["denied"]


async def test_esc_mid_stream_sends_cancel_and_keeps_no_assistant_turn(tmp_path: Path) -> None:
    writer = _Writer()
    session = _session(tmp_path, _Answers(), writer)
    await session.start()
    events: list[Any] = []
    try:
        async for event in session.send("stream"):
            events.append(event)
            if isinstance(event, TextDelta) and len(events) > 5:
                session.cancel()
    finally:
        await session.close()
    truncated = [e for e in events if isinstance(e, TurnTruncated)]
    assert len(truncated) == 1 and truncated[0].turn.stop_reason == "cancelled"
    assert not [e for e in events if isinstance(e, TurnCompleted)]
    assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"
    kinds = [r.type for r in writer.records]
    assert "assistant" not in kinds and "truncated" in kinds
    plans = [e for e in events if isinstance(e, PlanUpdated)]  # a Notice, its text the plan
    assert [e.text.splitlines()[0] for e in plans] == ["plan:"]
    assert [(e.content, e.status) for e in plans[0].entries] == [
        ("count", "in_progress"),
        ("stop", "pending"),
    ]


async def test_esc_while_the_question_waits_answers_it_cancelled(tmp_path: Path) -> None:
    writer = _Writer()

    class _Waits:
        asked = asyncio.Event()

        async def decide(self, request: ApprovalRequest) -> Decision:
            self.asked.set()
            await asyncio.Event().wait()  # nobody answers: only Esc ends this
            raise AssertionError("unreachable")

    waits = _Waits()
    session = _session(tmp_path, waits, writer)
    await session.start()
    try:
        sending = asyncio.ensure_future(_collect(session, "write a.txt one"))
        await asyncio.wait_for(waits.asked.wait(), 20)
        session.cancel()
        events = await asyncio.wait_for(sending, 20)
    finally:
        await session.close()
    assert not (tmp_path / "ws" / "a.txt").exists()
    decided = [e for e in events if isinstance(e, CallDecided)]
    assert [d.decision for d in decided] == ["cancel"]
    assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"


async def test_the_agent_process_tree_ends_with_the_session(tmp_path: Path) -> None:
    session = _session(tmp_path, _Answers(), _Writer())
    await session.start()
    process = session._process
    assert process is not None
    await session.close()
    assert process.returncode is not None


def test_run_resumes_the_agents_session_through_session_load(agents: Home) -> None:
    first = _run(agents, "hello", "scripted", "--json")
    assert first.code == 0, first.stderr
    session = agents.records()[0]["id"]
    again = _run(agents, "again", "scripted", "--json", "--session", session)
    assert again.code == 0, again.stderr
    notices = [e["text"] for e in again.events() if e["type"] == "notice"]
    assert any("resumed its session" in text for text in notices)
    users = [r["text"] for r in agents.records() if r["type"] == "user"]
    assert users == ["hello", "again"]


def test_a_replay_streams_the_agents_steps_and_calls_again(agents: Home) -> None:
    from tui_agent.replay.script import ReplayScript
    from tui_agent.session import SessionStore
    from tui_agent.stream.progress import ToolCallAnnounced

    done = _run(agents, "write r.txt again", "scripted", approve="all")
    assert done.code == 0, done.stderr
    loaded = SessionStore(agents.data / "tui-agent" / "sessions").load(agents.records()[0]["id"])
    events = [step.event for step in ReplayScript.from_records(loaded.records)]
    texts = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert texts == "I will write r.txt.Wrote r.txt."
    assert [e.name for e in events if isinstance(e, ToolCallAnnounced)] == ["Write r.txt"]
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["done"]
    notices = [getattr(e, "text", "") for e in events if type(e).__name__ == "Notice"]
    assert not [n for n in notices if "shown as saved" in n or "cannot decode" in n]


def test_a_terminal_runs_in_the_sandbox_and_a_rewind_undoes_it(agents: Home) -> None:
    command = "echo made > made.txt && cat made.txt"
    done = _run(agents, f"run {command}", "scripted", "--json", approve="all")
    assert done.code == 0, done.stderr
    assert (agents.workspace / "made.txt").read_text() == "made\n"
    events = done.events()
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "done" and "made" in finished["output"]
    assert "[exit code 0]" in finished["output"]
    assert "exit 0: made" in "".join(e["text"] for e in events if e["type"] == "text")
    kinds = [r["type"] for r in agents.records()]
    assert "checkpoint" in kinds and "checkpoint_done" in kinds
    session = agents.records()[0]["id"]
    rewound = agents.run_argv(
        [sys.executable, "-m", "tui_agent.cli", "rewind", session, "--to", "1", "--files-only"],
        key=None,
    )
    assert rewound.code == 0, rewound.stderr
    assert not (agents.workspace / "made.txt").exists()


def test_a_terminal_cannot_write_outside_the_workspace(agents: Home) -> None:
    outside = agents.root / "escaped.txt"
    done = _run(agents, f"run echo x > {outside}", "scripted", "--json", approve="all")
    assert done.code == 0, done.stderr
    assert not outside.exists()
    text = "".join(e["text"] for e in done.events() if e["type"] == "text")
    assert not text.startswith("exit 0")


def test_a_terminal_is_not_run_when_denied(agents: Home) -> None:
    done = _run(agents, "run echo x > nope.txt", "scripted", "--json", approve="never")
    assert done.code == 0, done.stderr
    assert not (agents.workspace / "nope.txt").exists()


def test_the_agents_whole_tree_dies_with_tui_agent_even_by_sigkill(agents: Home) -> None:
    pid_file = agents.root / "agent.pid"
    config = agents.config / "tui-agent" / "config.toml"
    text = config.read_text().replace(
        'env = { SCRIPTED_AGENT = "1" }', f'env = {{ SCRIPTED_AGENT_PID_FILE = "{pid_file}" }}'
    )
    config.write_text(text)
    argv = [sys.executable, "-m", "tui_agent.cli", "run", "--agent", "scripted", "stream"]
    argv += ["--workspace", str(agents.workspace), "--json"]
    process = subprocess.Popen(
        argv,
        cwd=agents.workspace,
        env=agents.env(None),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with JsonLines(process) as lines:
        lines.wait_for("text", timeout=20.0)
        agent = int(pid_file.read_text())
        assert Path(f"/proc/{agent}").exists()
        process.kill()
        process.wait()
    # The agent's helper left its group and its parent may be gone too: the lifeline (a child
    # subreaper tied to tui-agent) ends it when tui-agent dies. A bounded wait, not a timing.
    for _ in range(500):
        if not Path(f"/proc/{agent}").exists() or _zombie(agent):
            break
        time.sleep(0.02)
    assert not Path(f"/proc/{agent}").exists() or _zombie(agent)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True


def test_an_agent_that_cannot_load_starts_afresh_and_says_so(agents: Home) -> None:
    config = agents.config / "tui-agent" / "config.toml"
    argv = [*SCRIPTED, "--no-load"]
    config.write_text(config.read_text().replace(json.dumps(SCRIPTED), json.dumps(argv)))
    first = _run(agents, "hello", "scripted", "--json")
    assert first.code == 0, first.stderr
    session = agents.records()[0]["id"]
    again = _run(agents, "again", "scripted", "--json", "--session", session)
    assert again.code == 0, again.stderr
    warnings = [e["text"] for e in again.events() if e["type"] == "notice"]
    assert any("did not load its saved session" in text for text in warnings), warnings
    assert "you said: again" in "".join(e["text"] for e in again.events() if e["type"] == "text")
