"""Asking the person about a call: the approval request as shown (a copy of the arguments,
bound to the sandbox it runs under), an edit validated again, the once-a-session second question
before an unconfined run, a rule kept (and saved to config.toml), and the decision recorded.

One question is open at a time: Esc withdraws it (the turn is cancelled), and so does a change
of the approval mode (``ModeChanged``: the call is decided again under the new mode).
``CallQuestions`` is the ``CallRunner``'s (``calls.py``) part for this; the runner holds the
state it reads.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from ..approval.approver import ApprovalRequest, Approver
from ..approval.decision import Decision
from ..approval.policy import ApprovalPolicy
from ..call_outcome import DecidedBy, DecisionKind
from ..config import ConfigError, remember_rule
from ..sandbox.binding import bound_digest
from ..sandbox.policy import SandboxPolicy
from ..stream.turn import ToolCall
from ..tools.registry import ToolRegistry
from ..tools.spec import ToolContext
from ..tools.validation import InvalidCall, ValidatedCall, validate_edited
from .call_results import Emit, record_decision
from .call_sandbox import SandboxGate
from .events import CallInvalid, Notice
from .recorder import SessionRecorder

MAX_EDIT_ATTEMPTS = 3


class ModeChanged(Exception):
    """The approval mode changed while a call waited for its answer (``mode_changed``)."""


def cancelled_from_outside() -> bool:
    """True when the task running us was cancelled itself (not just a task it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class CallQuestions:
    """The questions of a ``CallRunner`` (which sets every attribute below)."""

    registry: ToolRegistry
    context: ToolContext
    policy: ApprovalPolicy
    approver: Approver
    recorder: SessionRecorder
    config_path: Path | None
    gate: SandboxGate
    cancel_requested: bool
    _asking: asyncio.Future[Decision] | None
    _mode_change: bool  # the open question was withdrawn by a mode change
    _shown_sandbox: SandboxPolicy | None  # on the approval last asked

    def mode_changed(self) -> None:
        """The approval mode changed: a question still open is withdrawn (its prompt closes) and
        its call is decided again under the new mode, so an answer given to the old question
        cannot run a call the new mode refuses (a write, once plan mode is on)."""
        if self._asking is not None and not self._asking.done():
            self._mode_change = True
            self._asking.cancel()

    async def _remember(self, decision: Decision, emit: Emit) -> None:
        rule = decision.remember
        assert rule is not None
        self.policy.rules.add(rule)
        if not decision.persist:
            return
        if self.config_path is None:
            text = f"kept for this session only (no config file to save to): {rule.describe()}"
            emit(Notice(text, "warning"))
            return
        try:
            await asyncio.to_thread(remember_rule, self.config_path, rule)
        except (ConfigError, OSError) as exc:
            emit(Notice(f"kept for this session only; not saved: {exc}", "warning"))
        else:
            emit(Notice(f"saved to {self.config_path.name}: {rule.describe()}"))

    async def _ask(
        self, vc: ValidatedCall, position: int, total: int, emit: Emit
    ) -> tuple[Decision, ValidatedCall] | None:
        current = vc
        for _ in range(MAX_EDIT_ATTEMPTS + 1):
            sandbox = self._shown_sandbox = self.gate.policy_for(current.spec, self.context)
            request = ApprovalRequest(
                call_id=current.call.id,
                tool_name=current.spec.name,
                risk=str(current.spec.risk),
                # A copy: whatever the prompt does with it cannot change what runs.
                arguments=MappingProxyType(copy.deepcopy(current.arguments)),
                canonical=current.canonical,
                digest=bound_digest(current.digest, sandbox),
                position=position,
                total=total,
                sandbox=sandbox.label() if sandbox else "",
                sandbox_warning=self.gate.warning(sandbox),
                claims=current.spec.claims,
            )
            decision = await self.decision_confirmed(request, sandbox, emit)
            if decision.kind == "cancel":
                self._decide(vc.call, "cancel", digest=current.digest, by="user", emit=emit)
                return None
            if decision.kind == "edit" and decision.edited_arguments is not None:
                edited = validate_edited(self.registry, vc.call, decision.edited_arguments)
                if isinstance(edited, InvalidCall):
                    # Not final: the call is offered again, as the model sent it.
                    emit(CallInvalid(vc.call.id, vc.call.name, f"edited: {edited.error}"))
                    continue
                bound = bound_digest(edited.digest, sandbox)  # what the edit runs under
                self._decide(
                    vc.call, "edit", digest=bound, by="user", arguments=edited.canonical, emit=emit
                )
                return decision, edited
            self._decide(
                vc.call,
                decision.kind,
                digest=request.digest,
                by=decision.by,
                reason=decision.reason,
                emit=emit,
            )
            return decision, current
        why = "the edited arguments were invalid too many times"
        self._decide(vc.call, "deny", digest=vc.digest, by="user", reason=why, emit=emit)
        return Decision(kind="deny", reason=why), vc

    async def decision_confirmed(
        self, request: ApprovalRequest, sandbox: SandboxPolicy | None, emit: Emit
    ) -> Decision:
        """The person's answer, and the once-a-session second question when ``sandbox`` runs
        the call unconfined or unprotected (``CallGate.confirmation``): every path to an
        unconfined run asks it, the model's calls and the F6 re-run alike."""
        decision = await self._decision(request, emit)
        confirm = self.gate.confirmation(sandbox)
        if confirm and decision.kind in ("approve", "edit"):  # an edit runs unprotected too
            second = await self._decision(replace(request, confirm=confirm), emit)
            self.gate.confirmed = second.kind == "approve"
            decision = decision if self.gate.confirmed else second
        return decision

    async def _decision(self, request: ApprovalRequest, emit: Emit) -> Decision:
        """The approver's answer; Esc while it is asked, or a broken prompt, cancels the turn."""
        if self.cancel_requested:
            return Decision("cancel")
        asking = asyncio.ensure_future(self.approver.decide(request))
        self._asking = asking
        try:
            return await asking
        except asyncio.CancelledError:
            if cancelled_from_outside():
                raise
            if self._mode_change and not self.cancel_requested:
                raise ModeChanged from None
            if not self.cancel_requested:
                raise
            return Decision("cancel")
        except Exception as exc:  # the prompt's bug must not leave calls without results
            text = f"the approval prompt failed ({type(exc).__name__}: {exc}); turn cancelled"
            emit(Notice(text, "error"))
            return Decision("cancel")
        finally:
            self._asking = None
            self._mode_change = False

    def _decide(
        self,
        call: ToolCall,
        kind: DecisionKind,
        *,
        digest: str,
        by: DecidedBy,
        emit: Emit,
        reason: str | None = None,
        arguments: str | None = None,
    ) -> None:
        """Record the decision, bound to ``digest``; tell the UI unless the call was invalid."""
        record_decision(
            self.recorder,
            call,
            kind,
            digest=digest,
            by=by,
            emit=emit,
            reason=reason,
            arguments=arguments,
        )
