"""An ACP agent's permission request (``session/request_permission``), decided as tui-agent
decides its own calls: the approval mode and the session's rules (``ApprovalPolicy``) first,
then the ``Approver`` face (the app's armed prompt, or ``run --approve``); the decision goes
back as the agent's option of the matching kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..approval.approver import ApprovalRequest, Approver
from ..approval.decision import Decision
from ..approval.policy import ApprovalMode, ApprovalPolicy
from .updates import AcpCall, risk_of


async def decide(
    call: AcpCall,
    policy: ApprovalPolicy,
    approver: Approver,
    *,
    workspace: Path,
    agent_title: str,
    asking: Callable[[asyncio.Future[Decision] | None], None],
) -> tuple[Decision, Any]:
    """What is decided of ``call``, and by whom. ``asking`` is handed the question while the
    approver is asked (to cancel it: the decision is then "cancel"), and None after."""
    risk = risk_of(call.kind)
    arguments = call.arguments()
    auto = policy.auto_approval(call.name, risk, arguments, str(workspace))
    if policy.mode is ApprovalMode.PLAN and auto is None:
        decision = Decision("deny", reason="plan mode: only reading runs", by="policy")
    elif auto is not None:
        decision = Decision("approve", by="policy")
    else:
        request = ApprovalRequest(
            call_id=call.id,
            tool_name=call.name,
            risk=risk,
            arguments=arguments,
            canonical=call.canonical(),
            digest=call.digest(),
            position=1,
            total=1,
            claims=(f"{agent_title} says this call is of kind {call.kind!r}",),
        )
        question = asyncio.ensure_future(approver.decide(request))
        asking(question)
        try:
            decision = await question
        except asyncio.CancelledError:
            decision = Decision("cancel")
        finally:
            asking(None)
    by: Any = decision.by
    if auto is not None:
        by = "policy" if auto.startswith(("auto-approve", "read-only tool")) else "rule"
    if decision.kind == "edit":  # an agent's call cannot be edited: it is not run
        decision = Decision("deny", reason="the agent's calls cannot be edited; not run")
    return decision, by


def answer(decision: Decision, options: list[Any]) -> Any:
    """The response for ``decision``: the agent's option of the wanted kind, else cancelled."""
    from acp.schema import AllowedOutcome, RequestPermissionResponse

    if decision.kind == "cancel":
        return cancelled()
    for kind in _wanted_kinds(decision):
        for option in options:
            if option.kind == kind:
                return RequestPermissionResponse(
                    outcome=AllowedOutcome(option_id=option.option_id, outcome="selected")
                )
    return cancelled()


def cancelled() -> Any:
    from acp.schema import DeniedOutcome, RequestPermissionResponse

    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def _wanted_kinds(decision: Decision) -> tuple[str, ...]:
    if decision.kind == "approve":
        if decision.remember is not None:
            return ("allow_always", "allow_once")
        return ("allow_once", "allow_always")
    return ("reject_once", "reject_always")
