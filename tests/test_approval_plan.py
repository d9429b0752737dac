"""Plan mode's rules without the app: reads run, everything else is refused before any rule or
question; the tools offered and the system prompt of a request in plan mode."""

from __future__ import annotations

from tui_agent.approval.plan import PLAN_PROMPT, PLAN_REFUSAL, offered, refusal, system_prompt
from tui_agent.approval.policy import ApprovalMode, ApprovalPolicy
from tui_agent.approval.rules import AllowTool, SessionRules

RISKS = {"read_file": "read", "write_file": "write", "run_command": "execute", "fetch": "network"}


def test_plan_mode_approves_reads_and_refuses_the_rest_even_with_a_rule() -> None:
    policy = ApprovalPolicy(ApprovalMode.PLAN, SessionRules([AllowTool("write_file")]))
    assert policy.auto_approval("read_file", "read", {}) == "read-only tool in plan mode"
    assert policy.auto_approval("write_file", "write", {}) is None  # the rule does not apply
    assert refusal(policy.mode, "read") is None
    for risk in ("write", "execute", "network", "unknown"):
        assert refusal(policy.mode, risk) == PLAN_REFUSAL
    assert "plan mode is on" in PLAN_REFUSAL


def test_other_modes_refuse_nothing() -> None:
    for mode in (ApprovalMode.ASK, ApprovalMode.AUTO_READ, ApprovalMode.AUTO_ALL):
        assert refusal(mode, "execute") is None


def test_a_request_in_plan_mode_offers_reads_and_says_it_plans() -> None:
    names = list(RISKS)
    assert offered("plan", names, str, RISKS.get) == ["read_file"]
    assert offered("ask", names, str, RISKS.get) == names
    assert offered("plan", ["mystery"], str, RISKS.get) == []  # unknown risk: not a read
    assert system_prompt("plan", "Base.") == f"Base.\n\n{PLAN_PROMPT}"
    assert system_prompt("auto-all", "Base.") == "Base."
