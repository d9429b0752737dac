"""Approval modes and rules through the real loop: ask (default), auto-approve read-only tools,
auto-approve all; "always allow tool X", exact-command and command-prefix rules (never matched by
a compound command); rules kept mid-turn, for the session, and saved to config."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.agent.events import LoopEnded, Notice, ToolStarted
from tui_agent.approval import (
    AllowCommand,
    AllowCommandPrefix,
    AllowTool,
    ApprovalMode,
    approve,
    deny,
)
from tui_agent.config import load_config

from .agent_helpers import (
    PROTOCOLS,
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    decided,
    finished,
    of_type,
)
from .fake_provider import Reply

READ = ("call_R", "read_file", {"path": "a.txt"})
LIST = ("call_L", "list_dir", {"path": "."})
SEARCH = ("call_S", "search_text", {"pattern": "hello"})
WRITE = ("call_W", "write_file", {"path": "w.txt", "content": "W"})
RUN = ("call_C", "run_command", {"command": "echo ran > c.txt"})
EVERY_RISK = (READ, LIST, SEARCH, WRITE, RUN)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("hello\n")
    return ws


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_ask_mode_asks_for_every_call_in_order(protocol: str, tmp_path: Path) -> None:
    workspace(tmp_path)
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*EVERY_RISK)),
        answer(protocol),
        approver=ScriptedApprover(*[approve()] * 5),
    ) as h:
        events = await h.send("do everything")
        shown = [(r.call_id, r.risk, r.position, r.total) for r in h.approver.requests]
        assert shown == [
            ("call_R", "read", 1, 5),
            ("call_L", "read", 2, 5),
            ("call_S", "read", 3, 5),
            ("call_W", "write", 4, 5),
            ("call_C", "execute", 5, 5),
        ]
        assert {e.by for e in decided(events).values()} == {"user"}
        assert {e.status for e in finished(events).values()} == {"done"}
        assert (h.workspace / "c.txt").read_text() == "ran\n"
        h.assert_session_valid()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_auto_read_mode_approves_only_read_only_tools(protocol: str, tmp_path: Path) -> None:
    workspace(tmp_path)
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*EVERY_RISK)),
        answer(protocol),
        approver=ScriptedApprover(deny(), deny()),
        mode=ApprovalMode.AUTO_READ,
    ) as h:
        events = await h.send("do everything")
        assert [r.call_id for r in h.approver.requests] == ["call_W", "call_C"]
        why = {k: (e.decision, e.by, e.reason) for k, e in decided(events).items()}
        auto = ("approve", "policy", "read-only tool in auto-read mode")
        assert why == {
            "call_R": auto,
            "call_L": auto,
            "call_S": auto,
            "call_W": ("deny", "user", None),
            "call_C": ("deny", "user", None),
        }
        assert sorted(e.call_id for e in of_type(events, ToolStarted)) == [
            "call_L",
            "call_R",
            "call_S",
        ]
        assert not (h.workspace / "w.txt").exists() and not (h.workspace / "c.txt").exists()
        h.assert_session_valid()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_auto_all_mode_approves_everything_as_policy(protocol: str, tmp_path: Path) -> None:
    workspace(tmp_path)
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*EVERY_RISK)),
        answer(protocol),
        mode=ApprovalMode.AUTO_ALL,
        rules=[AllowTool("write_file")],  # the mode approved it; the rule is not the reason
    ) as h:
        events = await h.send("do everything")
        assert h.approver.requests == []
        assert {(e.by, e.reason) for e in decided(events).values()} == {
            ("policy", "auto-approve all")
        }
        assert (h.workspace / "w.txt").read_text() == "W"
        assert (h.workspace / "c.txt").read_text() == "ran\n"
        h.assert_session_valid()


async def test_always_allow_tool_rule_approves_that_tool_only(tmp_path: Path) -> None:
    protocol = "anthropic"
    workspace(tmp_path)
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(WRITE, READ)),
        answer(protocol),
        approver=ScriptedApprover(approve()),
        rules=[AllowTool("write_file")],
    ) as h:
        events = await h.send("go")
        assert [r.call_id for r in h.approver.requests] == ["call_R"]
        write = decided(events)["call_W"]
        assert (write.by, write.reason) == ("rule", "always allow write_file")
        assert finished(events)["call_W"].status == "done"


async def test_exact_command_rule_matches_that_command_byte_for_byte(tmp_path: Path) -> None:
    protocol = "openai-responses"
    commands = ["echo hi", "echo  hi", "echo hi ", "echo hi there", "echo hi; echo extra"]
    calls = [(f"call_{i}", "run_command", {"command": c}) for i, c in enumerate(commands)]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*calls)),
        answer(protocol),
        approver=ScriptedApprover(*[deny()] * 4),
        rules=[AllowCommand("echo hi")],
    ) as h:
        events = await h.send("go")
        asked = [r.arguments["command"] for r in h.approver.requests]
        assert asked == commands[1:]
        rule = decided(events)["call_0"]
        assert (rule.by, rule.reason) == ("rule", AllowCommand("echo hi").describe())
        assert [e.call_id for e in of_type(events, ToolStarted)] == ["call_0"]


COMPOUND = [
    "echo ok; touch pwned",
    "echo ok && touch pwned",
    "echo ok || touch pwned",
    "echo ok & touch pwned",
    "echo ok | tee pwned",
    "echo ok > pwned",
    "echo ok >> pwned",
    "echo ok < /dev/null",
    "echo $(touch pwned)",
    "echo `touch pwned`",
    'echo "$(touch pwned)"',
    "echo ok\ntouch pwned",
    "echo ok\rtouch pwned",
    "echo ${x@P}",
    "echo ok # ; touch pwned",
]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_prefix_rule_never_matches_chaining_pipes_redirection_or_substitution(
    protocol: str, tmp_path: Path
) -> None:
    simple = ["echo ok", "echo 'a;b|c>d'", "echo ok --flag"]
    commands = simple + COMPOUND
    calls = [(f"call_{i}", "run_command", {"command": c}) for i, c in enumerate(commands)]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*calls)),
        answer(protocol),
        approver=ScriptedApprover(*[deny("compound")] * len(COMPOUND)),
        rules=[AllowCommandPrefix(("echo",))],
    ) as h:
        events = await h.send("go")
        assert [r.arguments["command"] for r in h.approver.requests] == COMPOUND
        by_rule = [k for k, e in decided(events).items() if e.by == "rule"]
        assert by_rule == ["call_0", "call_1", "call_2"]
        assert not (h.workspace / "pwned").exists()
        h.assert_session_valid()


async def test_a_kept_rule_covers_the_rest_of_the_turn_and_the_session(tmp_path: Path) -> None:
    protocol = "gemini-interactions"
    workspace(tmp_path)
    reads = [(f"call_{i}", "read_file", {"path": "a.txt"}) for i in range(3)]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*reads)),
        Reply(call_ops(("call_3", "read_file", {"path": "a.txt"}), WRITE)),
        answer(protocol),
        approver=ScriptedApprover(approve(remember=AllowTool("read_file")), approve()),
    ) as h:
        events = await h.send("read a lot")
        assert [r.call_id for r in h.approver.requests] == ["call_0", "call_W"]
        ways = {k: e.by for k, e in decided(events).items()}
        assert ways == {
            "call_0": "user",
            "call_1": "rule",
            "call_2": "rule",
            "call_3": "rule",
            "call_W": "user",
        }
        assert h.agent.calls.policy.rules.rules() == [AllowTool("read_file")]
        h.assert_session_valid()


@pytest.mark.heavy
async def test_kept_command_and_prefix_rules_apply_to_later_turns(tmp_path: Path) -> None:
    protocol = "openai-chat"

    def run(call_id: str, command: str) -> tuple[str, str, dict[str, str]]:
        return (call_id, "run_command", {"command": command})

    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(run("call_1", "echo one"), run("call_2", "ls -a"))),
        Reply(call_ops(run("call_3", "echo one"), run("call_4", "ls -a -l"))),
        Reply(call_ops(run("call_5", "echo two"), run("call_6", "ls -a; rm -rf ."))),
        answer(protocol),
        approver=ScriptedApprover(
            approve(remember=AllowCommand("echo one")),
            approve(remember=AllowCommandPrefix(("ls", "-a"))),
            deny(),
            deny(),
        ),
    ) as h:
        events = await h.send("go")
        asked = [r.call_id for r in h.approver.requests]
        assert asked == ["call_1", "call_2", "call_5", "call_6"]
        assert decided(events)["call_3"].by == "rule" and decided(events)["call_4"].by == "rule"
        assert events[-1] == LoopEnded("complete")


async def test_approve_the_rest_of_the_turn(tmp_path: Path) -> None:
    protocol = "anthropic"
    writes = [(f"call_{i}", "write_file", {"path": f"{i}.txt", "content": "x"}) for i in range(3)]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*writes)),
        Reply(call_ops(("call_3", "write_file", {"path": "3.txt", "content": "x"}))),
        answer(protocol),
        approver=ScriptedApprover(approve(approve_rest=True), deny()),
    ) as h:
        events = await h.send("write")
        assert [r.call_id for r in h.approver.requests] == ["call_0", "call_3"]
        rest = decided(events)["call_2"]
        assert (rest.decision, rest.by) == ("approve", "user")
        assert sorted(p.name for p in h.workspace.iterdir()) == ["0.txt", "1.txt", "2.txt"]


async def test_saved_to_config_writes_the_rule_into_config_toml(tmp_path: Path) -> None:
    protocol = "openai-chat"
    config_path = tmp_path / "config.toml"
    config_path.write_text("# mine\n[settings]\nmax_tokens = 100\n")
    decisions = [
        approve(remember=AllowCommandPrefix(("wc", "-l")), persist=True),
        approve(remember=AllowTool("write_file"), persist=True),
    ]
    calls = [("call_G", "run_command", {"command": "wc -l < /dev/null || true"}), WRITE]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*calls)),
        answer(protocol),
        approver=ScriptedApprover(*decisions),
        config_path=config_path,
    ) as h:
        events = await h.send("go")
        notices = [n.text for n in of_type(events, Notice)]
        assert notices == [
            f"saved to config.toml: {AllowCommandPrefix(('wc', '-l')).describe()}",
            "saved to config.toml: always allow write_file",
        ]
    saved = load_config(config_path)
    assert saved.approval.rules() == [AllowTool("write_file"), AllowCommandPrefix(("wc", "-l"))]
    assert saved.settings.max_tokens == 100
    assert config_path.read_text().startswith("# mine\n")
    assert config_path.stat().st_mode & 0o777 == 0o600


async def test_saved_to_config_without_a_config_file_keeps_the_rule_for_the_session(
    tmp_path: Path,
) -> None:
    protocol = "gemini"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(WRITE)),
        answer(protocol),
        approver=ScriptedApprover(approve(remember=AllowTool("write_file"), persist=True)),
    ) as h:
        events = await h.send("go")
        [notice] = of_type(events, Notice)
        assert notice.level == "warning" and "session only" in notice.text
        assert h.agent.calls.policy.rules.rules() == [AllowTool("write_file")]
        assert finished(events)["call_W"].status == "done"


async def test_a_rule_the_config_file_refuses_is_still_kept_for_the_session(
    tmp_path: Path,
) -> None:
    protocol = "openai-responses"
    config_path = tmp_path / "config.toml"
    config_path.write_text("[settings]\nno_such_setting = 1\n")
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(WRITE)),
        answer(protocol),
        approver=ScriptedApprover(approve(remember=AllowTool("write_file"), persist=True)),
        config_path=config_path,
    ) as h:
        events = await h.send("go")
        [notice] = of_type(events, Notice)
        assert notice.level == "warning" and "not saved" in notice.text
        assert h.agent.calls.policy.rules.rules() == [AllowTool("write_file")]
        assert events[-1] == LoopEnded("complete")
    assert config_path.read_text() == "[settings]\nno_such_setting = 1\n"
