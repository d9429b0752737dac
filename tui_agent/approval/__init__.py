"""Approval of tool calls: modes, session rules, decisions and the Approver face (no I/O)."""

from .approver import (
    ApprovalRequest,
    Approver,
    HeadlessApprover,
    UnknownApproveOptionError,
)
from .decision import Decision, approve, cancel, deny, edit
from .policy import ApprovalMode, ApprovalPolicy
from .rules import (
    AllowCommand,
    AllowCommandPrefix,
    AllowTool,
    Rule,
    RuleError,
    SessionRules,
    rule_for_call,
)
from .shell_words import command_words, is_compound_command, prefix_matches

__all__ = [
    "AllowCommand",
    "AllowCommandPrefix",
    "AllowTool",
    "ApprovalMode",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "Decision",
    "HeadlessApprover",
    "Rule",
    "RuleError",
    "SessionRules",
    "UnknownApproveOptionError",
    "approve",
    "cancel",
    "command_words",
    "deny",
    "edit",
    "is_compound_command",
    "prefix_matches",
    "rule_for_call",
]
