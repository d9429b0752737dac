"""Which tool calls run without asking: the approval mode, then the session's rules."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from .rules import SessionRules

READ_RISK = "read"


class ApprovalMode(StrEnum):
    """How much runs without a question; switchable from inside the app."""

    ASK = "ask"
    AUTO_READ = "auto-read"
    AUTO_ALL = "auto-all"
    PLAN = "plan"  # only read-risk tools are offered and run: see plan.py


class ApprovalPolicy:
    """Decides, before any prompt, whether a call is approved already and why."""

    def __init__(self, mode: ApprovalMode = ApprovalMode.ASK, rules: SessionRules | None = None):
        self.mode = mode
        self.rules = rules if rules is not None else SessionRules()

    def auto_approval(self, tool_name: str, risk: str, arguments: Mapping[str, Any]) -> str | None:
        """A short reason when the call needs no question; None when the user must be asked.

        ``risk`` is one of read, write, execute, network; anything else is treated as not read.
        """
        if self.mode is ApprovalMode.AUTO_ALL:
            return "auto-approve all"
        if self.mode is ApprovalMode.PLAN:  # anything else is refused before it is asked
            return "read-only tool in plan mode" if risk == READ_RISK else None
        if self.mode is ApprovalMode.AUTO_READ and risk == READ_RISK:
            return "read-only tool in auto-read mode"
        rule = self.rules.matching(tool_name, arguments)
        return rule.describe() if rule is not None else None

    def refusal(self, risk: str) -> str | None:
        """Why a call of ``risk`` is refused without asking (plan mode); None: it is not."""
        from .plan import refusal

        return refusal(self.mode, risk)
