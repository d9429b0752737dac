"""`tui-agent acp`'s Approver: what the approval mode and rules leave open is asked of the ACP
client (``session/request_permission``), and its answer becomes one of our decisions.

Allow runs the call once; "always allow" keeps the rule the app's ``t`` key keeps (this tool,
or for run_command this exact command), for this session only; deny tells the model; a
cancelled request (the client cancelled the prompt) cancels the turn. An option the client
made up, or a request that fails, runs nothing.
"""

from __future__ import annotations

from typing import Any

from acp.helpers import text_block, tool_content
from acp.schema import (
    DeniedOutcome,
    PermissionOption,
    ToolCallUpdate,
)

from ..approval.approver import ApprovalRequest
from ..approval.decision import Decision, approve, cancel, deny
from ..approval.rules import Rule, RuleError, rule_for_call
from ..session.stream_redaction import redact_value
from .acp_updates import CallViews, ToolContent, title

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"


class AcpApprover:
    """Asks the client through ``session/request_permission``; ``connect`` it to the session
    once that is open (nothing is asked before)."""

    def __init__(self) -> None:
        self.client: Any = None  # acp.interfaces.Client: what the connection gives the agent
        self.session_id = ""
        self.views: CallViews | None = None

    def connect(self, client: Any, session_id: str, views: CallViews) -> None:
        self.client, self.session_id, self.views = client, session_id, views

    async def decide(self, request: ApprovalRequest) -> Decision:
        if self.client is None or self.views is None:
            return deny("not approved: no ACP client to ask", by="policy")
        views = self.views
        whose = f"{request.origin}: " if request.origin else ""  # a subagent's call
        shown = views.told(request.call_id, whose)
        if shown is not None:  # the card shows the validated arguments before the question
            await self.client.session_update(session_id=self.session_id, update=shown)
        rule = _session_rule(request)
        options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once")]
        if rule is not None:
            name = f"Always allow in this session ({rule.describe()})"
            options.append(
                PermissionOption(
                    option_id=ALLOW_ALWAYS, name=views.redactor.redact(name), kind="allow_always"
                )
            )
        options.append(PermissionOption(option_id=REJECT_ONCE, name="Deny", kind="reject_once"))
        response = await self.client.request_permission(
            session_id=self.session_id, tool_call=self._tool_call(request), options=options
        )
        outcome = response.outcome
        if isinstance(outcome, DeniedOutcome):
            return cancel()
        if outcome.option_id == ALLOW_ONCE:
            return approve()
        if outcome.option_id == ALLOW_ALWAYS and rule is not None:
            return approve(remember=rule)
        if outcome.option_id == REJECT_ONCE:
            return deny()
        return deny(f"not approved: the client gave an unknown option {outcome.option_id!r}")

    def _tool_call(self, request: ApprovalRequest) -> ToolCallUpdate:
        """The call as the question shows it: what runs (the validated arguments), where, and
        under which sandbox; a second question (running unprotected) says so first."""
        assert self.views is not None
        redact = self.views.redactor.redact
        view = self.views.views.get(request.call_id)
        notes = [request.confirm] if request.confirm else []
        if request.sandbox:
            notes.append(f"runs in: {request.sandbox}")
        if request.sandbox_warning:
            notes.append(request.sandbox_warning)
        notes += [f"the tool's server claims: {claim}" for claim in request.claims]
        content: list[ToolContent] = []
        if view is not None and view.diff is not None:
            content.append(view.diff)
        if notes:
            content.append(tool_content(text_block(redact("\n".join(notes)))))
        shown = title(request.tool_name, request.arguments)
        if request.origin:
            shown = f"{request.origin}: {shown}"
        if request.confirm:
            shown = f"{request.confirm} {shown}"
        return ToolCallUpdate(
            tool_call_id=redact(request.call_id),
            title=redact(shown),
            kind=self.views.kind(request.tool_name),
            status="pending",
            raw_input=redact_value(dict(request.arguments), self.views.redactor),
            locations=list(view.locations) if view is not None and view.locations else None,
            content=content or None,
        )


def _session_rule(request: ApprovalRequest) -> Rule | None:
    """The rule "always allow" keeps; none for the second question (running unprotected is
    confirmed once, never kept as a rule) or a call no rule can name."""
    if request.confirm:
        return None
    try:
        return rule_for_call(request.tool_name, request.arguments)
    except RuleError:
        return None
