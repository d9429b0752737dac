"""Approval modes and rules decide before anyone is asked; decisions; the headless approver."""

from __future__ import annotations

import pytest

from tui_agent.approval import (
    AllowCommandPrefix,
    AllowTool,
    ApprovalMode,
    ApprovalPolicy,
    ApprovalRequest,
    Approver,
    Decision,
    HeadlessApprover,
    SessionRules,
    UnknownApproveOptionError,
    approve,
    cancel,
    deny,
    edit,
)

RISKS = ["read", "write", "execute", "network"]


@pytest.mark.parametrize("risk", RISKS)
def test_ask_mode_asks_for_everything(risk: str) -> None:
    assert ApprovalPolicy(ApprovalMode.ASK).auto_approval("tool", risk, {}) is None


@pytest.mark.parametrize("risk", RISKS)
def test_auto_read_approves_only_read(risk: str) -> None:
    reason = ApprovalPolicy(ApprovalMode.AUTO_READ).auto_approval("tool", risk, {})
    if risk == "read":
        assert reason == "read-only tool in auto-read mode"
    else:
        assert reason is None


@pytest.mark.parametrize("risk", [*RISKS, "unknown"])
def test_auto_all_approves_everything(risk: str) -> None:
    reason = ApprovalPolicy(ApprovalMode.AUTO_ALL).auto_approval("tool", risk, {})
    assert reason == "auto-approve all"


def test_unknown_risk_is_not_read() -> None:
    assert ApprovalPolicy(ApprovalMode.AUTO_READ).auto_approval("t", "READ", {}) is None


def test_rules_apply_in_ask_mode_with_their_description() -> None:
    rules = SessionRules([AllowTool("write_file"), AllowCommandPrefix(("ls", "-a"))])
    policy = ApprovalPolicy(ApprovalMode.ASK, rules)
    assert policy.auto_approval("write_file", "write", {}) == "always allow write_file"
    assert policy.auto_approval("run_command", "execute", {"command": "ls -a -s"}) == (
        "always allow run_command when the command starts with: ls -a"
    )
    assert policy.auto_approval("run_command", "execute", {"command": "ls -l"}) is None


def test_mode_can_be_switched_and_rules_revoked() -> None:
    policy = ApprovalPolicy()
    assert policy.mode is ApprovalMode.ASK
    policy.rules.add(AllowTool("fetch"))
    assert policy.auto_approval("fetch", "network", {}) is not None
    policy.rules.revoke(AllowTool("fetch"))
    assert policy.auto_approval("fetch", "network", {}) is None
    policy.mode = ApprovalMode.AUTO_ALL
    assert policy.auto_approval("fetch", "network", {}) == "auto-approve all"


def test_mode_values_are_the_config_spelling() -> None:
    assert [str(mode) for mode in ApprovalMode] == ["ask", "auto-read", "auto-all", "plan"]


def test_decision_helpers() -> None:
    rule = AllowTool("read_file")
    assert approve() == Decision("approve")
    assert approve(remember=rule).remember == rule
    assert approve(remember=rule, persist=True).persist
    assert approve(approve_rest=True).approve_rest
    assert deny() == Decision("deny")
    assert deny("too risky").reason == "too risky"
    assert edit('{"a": 1}').edited_arguments == '{"a": 1}'
    assert cancel().kind == "cancel"


@pytest.mark.parametrize(
    "make",
    [
        lambda: Decision("approve", reason="x"),
        lambda: Decision("edit"),
        lambda: Decision("approve", edited_arguments="{}"),
        lambda: Decision("deny", remember=AllowTool("x")),
        lambda: Decision("cancel", approve_rest=True),
        lambda: Decision("approve", persist=True),
    ],
)
def test_inconsistent_decisions_are_refused(make: object) -> None:
    with pytest.raises(ValueError):
        make()  # type: ignore[operator]


def request() -> ApprovalRequest:
    return ApprovalRequest(
        call_id="call_1",
        tool_name="write_file",
        risk="write",
        arguments={"path": "a.txt"},
        canonical='write_file {"path": "a.txt"}',
        digest="abc",
        position=1,
        total=2,
    )


@pytest.mark.parametrize(
    ("option", "mode"),
    [
        ("never", ApprovalMode.ASK),
        ("read-only", ApprovalMode.AUTO_READ),
        ("all", ApprovalMode.AUTO_ALL),
    ],
)
async def test_headless_approver_denies_and_tells_the_model(
    option: str, mode: ApprovalMode
) -> None:
    approver: Approver = HeadlessApprover(option)
    decision = await approver.decide(request())
    reason = f"not approved: tui-agent run was started with --approve {option}"
    assert decision == deny(reason, by="policy")  # the mode's denial, never a person's
    assert HeadlessApprover(option).mode is mode


def test_headless_approver_refuses_unknown_option() -> None:
    with pytest.raises(UnknownApproveOptionError, match="never, read-only, all"):
        HeadlessApprover("sometimes")


def test_rule_reasons_can_be_told_from_mode_reasons() -> None:
    # The loop records "by rule" vs "by policy"; every rule's reason starts with "always allow".
    mode_reasons = [
        ApprovalPolicy(ApprovalMode.AUTO_ALL).auto_approval("t", "write", {}),
        ApprovalPolicy(ApprovalMode.AUTO_READ).auto_approval("t", "read", {}),
    ]
    assert all(reason and "allow" not in reason for reason in mode_reasons)
    rules = SessionRules([AllowTool("t")])
    assert (ApprovalPolicy(rules=rules).auto_approval("t", "write", {}) or "").startswith(
        "always allow"
    )
