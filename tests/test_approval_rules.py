"""Session rules: what each kind allows, what it says to the user, adding and revoking."""

from __future__ import annotations

import pytest

from tui_agent.approval import (
    AllowCommand,
    AllowCommandPrefix,
    AllowTool,
    RuleError,
    SessionRules,
    rule_for_call,
)


def cmd(command: str) -> dict[str, object]:
    return {"command": command}


def test_tool_rule_matches_only_its_tool() -> None:
    rule = AllowTool("read_file")
    assert rule.matches("read_file", {"path": "a"})
    assert not rule.matches("write_file", {"path": "a"})
    assert rule.describe() == "always allow read_file"


def test_run_command_cannot_be_allowed_as_a_whole() -> None:
    with pytest.raises(RuleError, match="run_command cannot be allowed as a whole"):
        AllowTool("run_command")


def test_exact_command_rule_is_byte_for_byte() -> None:
    rule = AllowCommand("git status")
    assert rule.matches("run_command", cmd("git status"))
    assert not rule.matches("run_command", cmd("git status "))
    assert not rule.matches("run_command", cmd("git status --short"))
    assert not rule.matches("run_command", cmd("git status; rm -rf /"))
    assert not rule.matches("other_tool", cmd("git status"))
    assert not rule.matches("run_command", {})
    assert rule.describe() == "always allow run_command for exactly this command: git status"


def test_exact_command_rule_may_hold_operators() -> None:
    # The user saw and approved this exact line, operators included.
    rule = AllowCommand("make && make test")
    assert rule.matches("run_command", cmd("make && make test"))
    assert not rule.matches("run_command", cmd("make && make test; rm x"))


def test_prefix_rule() -> None:
    rule = AllowCommandPrefix(("ls", "-a"))
    assert rule.matches("run_command", cmd("ls -a --color"))
    assert not rule.matches("run_command", cmd("ls -ax"))
    assert not rule.matches("run_command", cmd("ls -a; rm -rf /"))
    assert not rule.matches("run_command", cmd("ls -a\nrm -rf /"))
    assert not rule.matches("run_command", {"command": ["ls", "-a"]})
    assert not rule.matches("read_file", cmd("ls -a"))
    assert rule.describe() == "always allow run_command when the command starts with: ls -a"


def test_prefix_rule_parse_and_text_round_trip() -> None:
    rule = AllowCommandPrefix.parse("grep -n 'two words'")
    assert rule.words == ("grep", "-n", "two words")
    assert AllowCommandPrefix.parse(rule.text) == rule


@pytest.mark.parametrize("text", ["", "   ", "git status; rm", "ls | sh", "echo 'open"])
def test_bad_prefixes_are_refused(text: str) -> None:
    with pytest.raises(RuleError):
        AllowCommandPrefix.parse(text)


def test_empty_rules_are_refused() -> None:
    with pytest.raises(RuleError):
        AllowCommandPrefix(())
    with pytest.raises(RuleError):
        AllowCommandPrefix(("git", ""))
    with pytest.raises(RuleError):
        AllowCommand(" ")
    with pytest.raises(RuleError):
        AllowTool("")


def test_always_key_remembers_exact_command_for_run_command() -> None:
    assert rule_for_call("run_command", cmd("ls -la")) == AllowCommand("ls -la")
    assert rule_for_call("read_file", {"path": "x"}) == AllowTool("read_file")
    with pytest.raises(RuleError):
        rule_for_call("run_command", {})


def test_session_rules_add_match_revoke() -> None:
    rules = SessionRules([AllowTool("read_file")])
    prefix = AllowCommandPrefix(("grep", "-n"))
    rules.add(prefix)
    rules.add(prefix)  # kept once
    assert rules.rules() == [AllowTool("read_file"), prefix]
    assert rules.matching("run_command", cmd("grep -n x README")) == prefix
    assert rules.matching("read_file", {}) == AllowTool("read_file")
    assert rules.matching("write_file", {}) is None

    assert rules.revoke(prefix) is True
    assert rules.revoke(prefix) is False
    assert rules.matching("run_command", cmd("grep -n x README")) is None
    assert rules.rules() == [AllowTool("read_file")]


def test_rules_listing_is_a_copy() -> None:
    rules = SessionRules()
    rules.rules().append(AllowTool("x"))
    assert rules.rules() == []
