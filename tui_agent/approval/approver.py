"""The face the agent loop asks for decisions, and the approver of ``tui-agent run``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .decision import Decision, deny
from .policy import ApprovalMode


@dataclass(frozen=True)
class ApprovalRequest:
    """One tool call waiting for a decision: call ``position`` of ``total`` in this turn.

    ``canonical`` is the exact text shown to the user (what runs); ``digest`` identifies it so a
    decision can be checked against what was shown (for a tool that runs a program it also binds
    the sandbox). ``sandbox``: where the program will run ("" for a tool that runs none);
    ``sandbox_warning``: shown in warning colour (mode off, or a protection missing);
    ``confirm``: set on the extra question asked once a session before running unprotected.
    ``origin``: who asks when it is not the model of the conversation: a subagent, and for which
    task ("" for the conversation's own calls).
    """

    call_id: str
    tool_name: str
    risk: str
    arguments: Mapping[str, Any]
    canonical: str
    digest: str
    position: int
    total: int
    sandbox: str = ""
    sandbox_warning: str = ""
    confirm: str = ""
    # What the tool's provider (an MCP server) claims about it: shown as its claim, never trusted.
    claims: tuple[str, ...] = ()
    origin: str = ""


class Approver(Protocol):
    """Anything that can answer approval requests: the app's prompt, a test, a headless run."""

    async def decide(self, request: ApprovalRequest) -> Decision: ...


# ``tui-agent run --approve X``: the policy mode each value means.
HEADLESS_MODES: dict[str, ApprovalMode] = {
    "never": ApprovalMode.ASK,
    "read-only": ApprovalMode.AUTO_READ,
    "all": ApprovalMode.AUTO_ALL,
}


class UnknownApproveOptionError(ValueError):
    """``--approve`` was given a value we do not know."""

    def __init__(self, value: str) -> None:
        known = ", ".join(HEADLESS_MODES)
        super().__init__(f"unknown --approve value {value!r}; use one of: {known}")


class HeadlessApprover:
    """Nobody is there to ask: whatever the policy did not approve is denied, and the model told.

    Build the policy with ``mode`` so that allowed calls never reach ``decide``. The denial is the
    approval mode's (``by="policy"``), never a person's: it does not reset the auto-step count.
    """

    def __init__(self, approve: str) -> None:
        if approve not in HEADLESS_MODES:
            raise UnknownApproveOptionError(approve)
        self.approve = approve
        self.mode = HEADLESS_MODES[approve]

    async def decide(self, request: ApprovalRequest) -> Decision:
        return deny(
            f"not approved: tui-agent run was started with --approve {self.approve}", by="policy"
        )
