"""Which tool calls run without asking: the approval mode, then the session's rules."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from .launchers import shadowing_folder
from .rules import AllowCommandPrefix, SessionRules

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

    def auto_approval(
        self,
        tool_name: str,
        risk: str,
        arguments: Mapping[str, Any],
        workspace: str | None = None,
    ) -> str | None:
        """A short reason when the call needs no question; None when the user must be asked.

        ``risk`` is one of read, write, execute, network; anything else is treated as not read.
        A prefix rule does not apply while PATH holds a folder of ``workspace``
        (``launchers.shadowing_folder``).
        """
        if self.mode is ApprovalMode.AUTO_ALL:
            return "auto-approve all"
        if self.mode is ApprovalMode.PLAN:  # anything else is refused before it is asked
            return "read-only tool in plan mode" if risk == READ_RISK else None
        if self.mode is ApprovalMode.AUTO_READ and risk == READ_RISK:
            return "read-only tool in auto-read mode"
        rule = self.rules.matching(tool_name, arguments)
        if rule is None:
            return None
        if isinstance(rule, AllowCommandPrefix) and _shadowed(rule, workspace):
            return None
        return rule.describe()


def _shadowed(rule: AllowCommandPrefix, workspace: str | None) -> bool:
    return workspace is not None and shadowing_folder(rule.words[0], workspace) is not None
