"""One hook run: its stdin, its answer as Claude Code reads it, its timeout, its sandbox."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.hook_helpers import BLOCKING, ESCAPES, HANGING, hook, script
from tui_agent.config import ConfigFileError
from tui_agent.config.load import parse_config
from tui_agent.hooks import (
    HookEvent,
    HookOutcome,
    HookPlace,
    SessionHooks,
    deciding,
    interpret,
    run_hook,
)
from tui_agent.sandbox.policy import SandboxPolicy


def _place(tmp_path: Path, **kw: object) -> HookPlace:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return HookPlace(workspace=workspace, **kw)  # type: ignore[arg-type]


def _pre(path: str) -> dict[str, object]:
    return {"tool_name": "write_file", "tool_input": {"path": path}, "call_id": "c1"}


async def test_the_hook_reads_claude_codes_fields_on_stdin(tmp_path: Path) -> None:
    seen = tmp_path / "ws" / "seen.json"
    body = f"json.dump(json.load(sys.stdin), open({str(seen)!r}, 'w'))\n"
    hooks = SessionHooks([hook(script(tmp_path, "h.py", body))], _place(tmp_path), "s-1")
    [outcome] = await hooks.run(HookEvent.PRE_TOOL_USE, _pre("a.txt"), "write_file")
    assert outcome.verdict == "ok", outcome
    data = json.loads(seen.read_text())
    assert data["session_id"] == "s-1"
    assert data["hook_event_name"] == "PreToolUse"
    assert data["tool_name"] == "write_file"
    assert data["tool_input"] == {"path": "a.txt"}
    assert data["call_id"] == "c1"
    assert data["cwd"] == data["workspace"] == str(tmp_path / "ws")


async def test_exit_2_blocks_with_stderr_as_the_reason(tmp_path: Path) -> None:
    declared = hook(script(tmp_path, "block.py", BLOCKING), name="guard")
    place = _place(tmp_path)
    blocked = await run_hook(declared, _pre("protected/x"), place)
    assert (blocked.verdict, blocked.reason, blocked.hook) == (
        "block",
        "protected paths are read-only",
        "guard",
    )
    assert blocked.blocks
    passed = await run_hook(declared, _pre("free/x"), place)
    assert passed.verdict == "ok" and not passed.blocks


async def test_a_hanging_hook_is_stopped_at_its_timeout(tmp_path: Path) -> None:
    place = _place(tmp_path, sandbox=SandboxPolicy().unconfined())
    declared = hook(script(tmp_path, "hang.py", HANGING), timeout=0.5, unconfined=True)
    outcome = await run_hook(declared, _pre("a"), place)
    assert outcome.verdict == "timed out"
    assert "stopped after 0.5 s" in outcome.reason
    pid = int((place.workspace / "hang.pid").read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the hanging hook still runs")


async def test_escape_sequences_never_leave_the_runner(tmp_path: Path) -> None:
    outcome = await run_hook(hook(script(tmp_path, "esc.py", ESCAPES)), _pre("a"), _place(tmp_path))
    assert outcome.verdict == "block"
    assert "\x1b" not in outcome.reason and "\x07" not in outcome.reason
    assert "\u202e" not in outcome.reason
    assert "\\x1b]52" in outcome.reason and "<U+202E>" in outcome.reason


async def test_output_is_capped(tmp_path: Path) -> None:
    body = "sys.stderr.write('x' * 100_000); sys.exit(2)\n"
    place = _place(tmp_path, output_cap=1000)
    outcome = await run_hook(hook(script(tmp_path, "big.py", body)), {}, place)
    assert len(outcome.reason) < 1100
    assert "hook output cut: 99000 more bytes" in outcome.reason


async def test_a_program_that_cannot_start_fails_without_blocking(tmp_path: Path) -> None:
    declared = hook(tmp_path / "x.py")
    missing = declared.config.model_copy(update={"command": [str(tmp_path / "nope")]})
    outcome = await run_hook(type(declared)(missing), {}, _place(tmp_path))
    assert outcome.verdict == "failed" and not outcome.blocks
    assert "cannot start" in outcome.reason


async def test_hooks_run_in_the_command_sandbox_by_default(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    body = f"open({str(outside)!r}, 'w').write('escaped')\n"
    place = _place(tmp_path)
    confined = await run_hook(hook(script(tmp_path, "w.py", body)), {}, place)
    assert confined.verdict == "failed" and not outside.exists()
    free = await run_hook(hook(script(tmp_path, "w.py", body), unconfined=True), {}, place)
    assert free.verdict == "ok" and outside.read_text() == "escaped"


async def test_no_secret_reaches_a_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123")
    out = tmp_path / "ws" / "env.txt"
    body = f"open({str(out)!r}, 'w').write(repr(sorted(os.environ)))\n"
    await run_hook(hook(script(tmp_path, "e.py", body)), {}, _place(tmp_path))
    names = out.read_text()
    assert "OPENAI_API_KEY" not in names and "TUI_AGENT_PROJECT_DIR" in names


@pytest.mark.parametrize(
    ("stdout", "verdict", "reason"),
    [
        ('{"decision": "block", "reason": "no"}', "block", "no"),
        ('{"continue": false, "stopReason": "halt"}', "block", "halt"),
        (
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": '
            '"deny", "permissionDecisionReason": "not here"}}',
            "deny",
            "not here",
        ),
        ('{"hookSpecificOutput": {"permissionDecision": "ask"}}', "ask", ""),
        ('{"hookSpecificOutput": {"permissionDecision": "allow"}}', "allow", ""),
        ('{"hookSpecificOutput": {"permissionDecision": "sure"}}', "ok", ""),
        ("not json", "ok", ""),
        ("[1]", "ok", ""),
    ],
)
def test_json_answers_are_read_as_claude_code_reads_them(
    stdout: str, verdict: str, reason: str
) -> None:
    assert interpret(HookEvent.PRE_TOOL_USE, 0, stdout, "")[:2] == (verdict, reason)


def test_plain_stdout_is_context_only_where_claude_code_takes_it() -> None:
    assert interpret(HookEvent.USER_PROMPT_SUBMIT, 0, "today is Friday", "")[2] == (
        "today is Friday"
    )
    assert interpret(HookEvent.PRE_TOOL_USE, 0, "today is Friday", "")[2] == ""
    post = interpret(HookEvent.POST_TOOL_USE, 2, "", "lint: 3 problems")
    assert post == ("block", "lint: 3 problems", "lint: 3 problems")
    assert interpret(HookEvent.PRE_TOOL_USE, 1, "", "oops") == ("failed", "exit code 1: oops", "")


def test_a_workspace_hook_can_never_allow() -> None:
    mine = HookOutcome("mine", HookEvent.PRE_TOOL_USE, "config", "allow")
    theirs = HookOutcome("theirs", HookEvent.PRE_TOOL_USE, "workspace", "allow")
    deny = HookOutcome("d", HookEvent.PRE_TOOL_USE, "workspace", "deny")
    assert deciding([theirs]) is None
    assert deciding([theirs, mine]) is mine
    assert deciding([mine, deny]) is deny


def test_matchers_match_the_whole_tool_name(tmp_path: Path) -> None:
    edit = hook(tmp_path / "h.py", matcher="write_file|edit_file").config
    assert edit.matches("write_file") and edit.matches("edit_file")
    assert not edit.matches("write_file_x") and not edit.matches("run_command")
    assert hook(tmp_path / "h.py", matcher="*").config.matches("anything")
    assert hook(tmp_path / "h.py", HookEvent.STOP, matcher="x").config.matches(None)


def test_a_subagent_stop_matcher_matches_the_agents_name(tmp_path: Path) -> None:
    from tui_agent.hooks import hook_line

    explore = hook(tmp_path / "h.py", HookEvent.SUBAGENT_STOP, matcher="explore")
    assert explore.config.matches("explore") and not explore.config.matches("reviewer")
    assert " · matcher explore · " in hook_line(explore)
    every = hook(tmp_path / "h.py", HookEvent.SUBAGENT_STOP)
    assert every.config.matches("reviewer") and " · every agent · " in hook_line(every)


def test_config_toml_declares_hooks(tmp_path: Path) -> None:
    text = """
[[hooks]]
event = "PreToolUse"
matcher = "run_command"
command = ["python3", "guard.py"]
timeout = 5
name = "guard"

[[hooks]]
event = "Stop"
command = ["notify-send", "done"]
"""
    config = parse_config(text, tmp_path / "config.toml")
    assert [h.label for h in config.hooks] == ["guard", "notify-send"]
    assert config.hooks[0].timeout == 5 and config.hooks[1].timeout == 60
    for bad, said in [
        ('event = "BeforeTool"\ncommand = ["x"]', "hooks[0].event"),
        ('event = "Stop"\ncommand = "x"', "hooks[0].command"),
        ('event = "Stop"\ncommand = ["x"]\nmatcher = "("', "matcher is not a regular"),
        ('event = "Stop"\ncommand = ["x"]\ntimout = 3', "did you mean timeout?"),
    ]:
        with pytest.raises(ConfigFileError, match=said.replace("[", r"\[").replace("(", r"\(")):
            parse_config("[[hooks]]\n" + bad, tmp_path / "config.toml")


def test_doctor_lists_the_hooks_of_config_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_agent.commands.doctor import report_text

    folder = tmp_path / "config" / "tui-agent"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(
        '[[hooks]]\nevent = "PreToolUse"\nmatcher = "run_command"\n'
        'command = ["python3", "log.py"]\nname = "log"\nunconfined = true\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    text, _ = report_text()
    assert "Hooks (config.toml):" in text
    assert "PreToolUse log · matcher run_command · python3 log.py" in text
    assert "UNCONFINED" in text and "1 run outside the command sandbox" in text
