"""Hooks over the real loop (build_agent, the fake provider, a real session store): PreToolUse
answers before the person is asked, PostToolUse sees the result, UserPromptSubmit may keep a
message from being sent, Stop runs once the agent waits; every verdict is told and saved."""

from __future__ import annotations

from pathlib import Path

from tui_agent.agent.events import (
    CallDecided,
    HookFinished,
    LoopEnded,
    Notice,
    ToolStarted,
    event_to_json,
)
from tui_agent.approval import approve
from tui_agent.session.records import DecisionRecord, HookRecord

from .agent_helpers import (
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    count_text,
    finished,
    of_type,
)
from .fake_provider import ExpectToolResults, Reply
from .hook_helpers import BLOCKING, ESCAPES, FORMATTER, HANGING, script, table

P = "openai-responses"


def write(call_id: str, path: str, content: str = "hi\n") -> tuple[str, str, dict[str, str]]:
    return (call_id, "write_file", {"path": path, "content": content})


async def test_a_blocking_hook_denies_before_anyone_is_asked(tmp_path: Path) -> None:
    guard = table(script(tmp_path, "guard.py", BLOCKING), matcher="write_file", name="guard")
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "protected/x.txt"))),
        answer(P, expect=ExpectToolResults({"call_A": "protected paths are read-only"})),
        hooks=[guard],
    ) as h:
        events = await h.send("write it")
        assert h.approver.requests == []  # the person was never asked
        assert not (h.workspace / "protected").exists()
        assert not of_type(events, ToolStarted)
        [hooked] = of_type(events, HookFinished)
        assert (hooked.event, hooked.hook, hooked.call_id, hooked.verdict) == (
            "PreToolUse",
            "guard",
            "call_A",
            "block",
        )
        [decision] = of_type(events, CallDecided)
        assert (decision.decision, decision.by) == ("deny", "hook")
        assert decision.reason == "hook guard: protected paths are read-only"
        assert finished(events)["call_A"].output.startswith("blocked by hook guard")
        records = h.records()
        assert [r.verdict for r in records if isinstance(r, HookRecord)] == ["block"]
        assert [r.by for r in records if isinstance(r, DecisionRecord)] == ["hook"]
        h.assert_session_valid()
        h.server.assert_all_consumed()


async def test_a_hook_of_the_persons_config_may_approve(tmp_path: Path) -> None:
    body = 'print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}}))\n'
    allow = table(script(tmp_path, "allow.py", body), name="allow-writes")
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "a.txt"))),
        answer(P, expect=ExpectToolResults({"call_A": None})),
        hooks=[allow],
    ) as h:
        events = await h.send("write it")
        assert h.approver.requests == []
        [decision] = of_type(events, CallDecided)
        assert (decision.decision, decision.by, decision.reason) == (
            "approve",
            "hook",
            "hook allow-writes",
        )
        assert (h.workspace / "a.txt").read_text() == "hi\n"
        assert finished(events)["call_A"].status == "done"


async def test_ask_makes_the_person_decide_even_in_an_auto_mode(tmp_path: Path) -> None:
    from tui_agent.approval import ApprovalMode

    body = 'print(json.dumps({"hookSpecificOutput": {"permissionDecision": "ask"}}))\n'
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "a.txt"))),
        answer(P),
        approver=ScriptedApprover(approve()),
        mode=ApprovalMode.AUTO_ALL,
        hooks=[table(script(tmp_path, "ask.py", body))],
    ) as h:
        await h.send("write it")
        assert [r.tool_name for r in h.approver.requests] == ["write_file"]


async def test_a_hanging_hook_is_stopped_and_the_call_goes_on(tmp_path: Path) -> None:
    hang = table(script(tmp_path, "hang.py", HANGING), timeout=0.5, name="slow")
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "a.txt"))),
        answer(P),
        approver=ScriptedApprover(approve()),
        hooks=[hang],
    ) as h:
        events = await h.send("write it")
        [hooked] = of_type(events, HookFinished)
        assert hooked.verdict == "timed out" and "stopped after 0.5 s" in hooked.reason
        assert finished(events)["call_A"].status == "done"


async def test_escape_sequences_of_a_hook_reach_nobody(tmp_path: Path) -> None:
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "a.txt"))),
        answer(P),
        hooks=[table(script(tmp_path, "esc.py", ESCAPES))],
    ) as h:
        events = await h.send("write it")
        for event in events:
            for value in event_to_json(event).values():
                assert "\x1b" not in str(value) and "\x07" not in str(value)
        assert "\\x1b]52" in finished(events)["call_A"].output
        raw = h.writer.path.read_text()
        assert "\\u001b" not in raw and "\x1b" not in raw


async def test_a_post_tool_use_formatter_rewrites_the_file_and_tells_the_model(
    tmp_path: Path,
) -> None:
    fmt = table(
        script(tmp_path, "fmt.py", FORMATTER), "PostToolUse", matcher="write_file", name="fmt"
    )
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "src/m.py", "x = 1   \n\tpass\n"))),
        answer(P, expect=ExpectToolResults({"call_A": "[hook fmt: formatted src/m.py]"})),
        approver=ScriptedApprover(approve()),
        hooks=[fmt],
    ) as h:
        events = await h.send("write it")
        assert (h.workspace / "src" / "m.py").read_text() == "x = 1\n    pass\n"
        [hooked] = of_type(events, HookFinished)
        assert (hooked.event, hooked.verdict) == ("PostToolUse", "block")
        h.assert_session_valid()
        h.server.assert_all_consumed()


async def test_user_prompt_submit_may_keep_a_message_from_being_sent(tmp_path: Path) -> None:
    body = """
data = json.load(sys.stdin)
if "password" in data["prompt"]:
    print("that message holds a password", file=sys.stderr)
    sys.exit(2)
print("the build is green")
"""
    gate = table(script(tmp_path, "gate.py", body), "UserPromptSubmit", name="gate")

    def told_context(body: object) -> None:
        assert count_text(body, "the build is green") == 1

    async with agent_over(P, tmp_path, answer(P, expect=told_context), hooks=[gate]) as h:
        events = await h.send("my password is hunter2")
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"
        assert any("message not sent: hook gate" in n.text for n in of_type(events, Notice))
        assert not h.agent.sent_anything and h.agent.messages == []
        events = await h.send("how is the build?")
        assert events[-1] == LoopEnded("complete")
        h.server.assert_all_consumed()


async def test_stop_hooks_run_once_the_agent_waits(tmp_path: Path) -> None:
    mark = tmp_path / "ws" / "stopped.json"
    body = f"json.dump(json.load(sys.stdin), open({str(mark)!r}, 'w'))\n"
    stop = table(script(tmp_path, "stop.py", body), "Stop", name="bell")
    async with agent_over(P, tmp_path, answer(P), hooks=[stop]) as h:
        events = await h.send("hello")
        assert [(e.event, e.verdict) for e in of_type(events, HookFinished)] == [("Stop", "ok")]
        assert isinstance(events[-2], HookFinished) and events[-1] == LoopEnded("complete")
        assert '"hook_event_name": "Stop"' in mark.read_text()


def test_hook_verdicts_are_json_events() -> None:
    event = HookFinished("PreToolUse", "guard", "call_A", "block", 0.12, "no")
    assert event_to_json(event) == {
        "type": "hook_finished",
        "event": "PreToolUse",
        "hook": "guard",
        "call_id": "call_A",
        "verdict": "block",
        "seconds": 0.12,
        "reason": "no",
        "source": "config",
    }


async def test_a_replay_shows_the_saved_verdicts(tmp_path: Path) -> None:
    from tui_agent.replay.script import ReplayScript

    guard = table(script(tmp_path, "guard.py", BLOCKING), name="guard")
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "protected/x.txt"))),
        answer(P),
        hooks=[guard],
    ) as h:
        live = of_type(await h.send("write it"), HookFinished)
        replayed = [s.event for s in ReplayScript.from_records(h.records())]
        assert of_type(replayed, HookFinished) == live


async def test_a_key_a_hook_prints_is_redacted_before_it_is_saved(tmp_path: Path) -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
    body = f"print({key!r}, file=sys.stderr); sys.exit(2)\n"
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(write("call_A", "a.txt"))),
        answer(P),
        hooks=[table(script(tmp_path, "leak.py", body), name="leak")],
    ) as h:
        await h.send("write it")
        raw = h.writer.path.read_text()
        assert key not in raw and "[REDACTED]" in raw


async def test_esc_stops_a_hook_that_hangs(tmp_path: Path) -> None:
    import asyncio
    import os

    # unconfined: the pid it writes is then the host's (a sandboxed one has its own namespace)
    hang = table(script(tmp_path, "hang.py", HANGING), timeout=600, name="slow", unconfined=True)
    async with agent_over(
        P, tmp_path, Reply(call_ops(write("call_A", "a.txt"))), hooks=[hang]
    ) as h:
        sending = asyncio.ensure_future(h.send("write it"))
        pid_file = h.workspace / "hang.pid"
        async with asyncio.timeout(20):
            while not (pid_file.exists() and pid_file.read_text()):
                await asyncio.sleep(0.02)
        pid = int(pid_file.read_text())
        h.agent.cancel()
        events = await sending
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "cancelled"
        assert finished(events)["call_A"].status == "cancelled"
        assert not (h.workspace / "a.txt").exists()
        async with asyncio.timeout(10):
            while True:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                await asyncio.sleep(0.05)
        h.assert_session_valid()


async def test_subagent_stop_runs_when_a_subagent_answers_and_its_prompt_is_not_submitted(
    tmp_path: Path,
) -> None:
    """SubagentStop (Claude Code's input, and the task call and agent) runs once the subagent
    answered, matched by its agent's name; UserPromptSubmit and Stop are the conversation's
    only: the subagent's prompt is the model's, not the person's."""
    import json

    from tui_agent.approval import ApprovalMode
    from tui_agent.prompting.agents import AgentScan, agent_book

    log = tmp_path / "ws" / "hooks.log"
    body = f"open({str(log)!r}, 'a').write(json.dumps(json.load(sys.stdin)) + '\\n')\n"
    logger = script(tmp_path, "log.py", body)
    hooks = [
        table(logger, "UserPromptSubmit", name="prompt"),
        table(logger, "Stop", name="stop"),
        table(logger, "SubagentStop", name="sub", matcher="explore"),
        table(logger, "SubagentStop", name="other", matcher="reviewer"),
    ]
    task = {"description": "notes", "prompt": "find the notes", "agent": "explore"}
    async with agent_over(
        P,
        tmp_path,
        Reply(call_ops(("call_T", "task", task))),
        answer(P, "The notes are empty."),
        answer(P, "Done."),
        mode=ApprovalMode.AUTO_READ,
        hooks=hooks,
        agents=agent_book(AgentScan(())),
    ) as h:
        events = await h.send("look at the notes")
        assert events[-1] == LoopEnded("complete")
        told = [(e.event, e.hook, e.call_id) for e in of_type(events, HookFinished)]
        assert told == [
            ("UserPromptSubmit", "prompt", ""),
            ("SubagentStop", "sub", "call_T"),
            ("Stop", "stop", ""),
        ]
        ran = [json.loads(line) for line in log.read_text().splitlines()]
        assert [r["hook_event_name"] for r in ran] == ["UserPromptSubmit", "SubagentStop", "Stop"]
        assert ran[0]["prompt"] == "look at the notes"
        stopped = ran[1]
        assert stopped["session_id"] == h.writer.session_id
        assert stopped["transcript_path"] == ran[0]["transcript_path"]
        assert stopped["stop_hook_active"] is False
        assert stopped["call_id"] == "call_T" and stopped["agent_type"] == "explore"
        assert stopped["last_assistant_message"] == "The notes are empty."
        saved = [(r.event, r.call_id) for r in h.records() if isinstance(r, HookRecord)]
        assert ("SubagentStop", "call_T") in saved
        h.assert_session_valid()
