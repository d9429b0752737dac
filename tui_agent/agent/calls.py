"""A complete turn's calls: validate, ask, run, and give every call exactly one result.

Invalid calls are never offered: the model gets the validation error. A decision is bound to
the call id and the digest of the arguments that were shown; what runs must hash the same.
Approved calls run in the order the model announced them, except that a run of consecutive
read-only calls runs concurrently: a read announced after a write still sees that write.

Every call gets exactly one decision event (CallInvalid or CallDecided) and then exactly one
ToolFinished; ToolStarted comes between them only for calls that ran, and no call starts before
every call of the turn was decided. What is recorded and shown for each: ``call_results.py``.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path

from ..approval.approver import Approver
from ..approval.decision import Decision
from ..approval.plan import refusal
from ..approval.policy import ApprovalPolicy
from ..call_outcome import CallStatus, DecidedBy
from ..conversation import ImagePart
from ..hooks import HookEvent, HookOutcome, SessionHooks, deciding
from ..sandbox.binding import bound_digest
from ..sandbox.policy import SandboxPolicy
from ..session.records import ToolStartRecord
from ..stream.turn import ToolCall
from ..tools.arguments import arguments_digest
from ..tools.registry import ToolRegistry
from ..tools.spec import Risk, ToolContext, ToolOutput
from ..tools.validation import InvalidCall, ValidatedCall, validate_call
from .call_checkpoints import CallCheckpoints
from .call_hooks import run_hooks
from .call_questions import CallQuestions, ModeChanged, cancelled_from_outside
from .call_results import (
    CANCELLED,
    INTERRUPTED,
    CallResult,
    CallRound,
    Emit,
    edited_note,
    record_result,
)
from .call_sandbox import SandboxGate
from .events import CallInvalid, Notice, ToolStarted
from .recorder import SessionRecorder


@dataclass(frozen=True, slots=True)
class _Approved:
    index: int  # position in the turn, as announced
    call: ValidatedCall
    digest: str  # of the arguments the decision was about
    note: str = ""  # told to the model before the call's result
    sandbox: SandboxPolicy | None = None  # what the call was approved to run under


def hook_reason(outcome: HookOutcome) -> str:
    """``hook NAME`` and what it said: the reason of a decision a hook made."""
    return f"hook {outcome.hook}" + (f": {outcome.reason}" if outcome.reason else "")


def hook_context(outcomes: list[HookOutcome]) -> str:
    """What hooks tell the model beside a call's result, one bracketed line each."""
    return "".join(f"[hook {o.hook}: {o.context}]\n" for o in outcomes if o.context)


class CallRunner(CallQuestions):
    """One agent's calls, a turn at a time (``run_round``); its questions: ``CallQuestions``."""

    def __init__(
        self,
        *,
        registry: ToolRegistry,
        context: ToolContext,
        policy: ApprovalPolicy,
        approver: Approver,
        recorder: SessionRecorder,
        output_cap: int,
        max_argument_bytes: int,
        config_path: Path | None = None,
        gate: SandboxGate | None = None,
    ) -> None:
        self.registry = registry
        self.context = context
        self.policy = policy
        self.approver = approver
        self.recorder = recorder
        self.output_cap = output_cap
        self.max_argument_bytes = max_argument_bytes
        self.config_path = config_path  # where "saved to config" rules go; None: nowhere
        self._running: set[asyncio.Task[ToolOutput]] = set()
        self._asking: asyncio.Future[Decision] | None = None
        self._mode_change = False  # the open question was withdrawn by a mode change
        self.cancel_requested = False
        self.gate = gate or SandboxGate(context.capabilities)
        self._shown_sandbox: SandboxPolicy | None = None  # on the approval last asked
        # Cuts an output further to what is left of the model's window (set by the Agent).
        self.fit_output: Callable[[str], str] | None = None
        self.checkpoints: CallCheckpoints | None = None  # set by the host: see call_checkpoints
        self.hooks: SessionHooks | None = None  # set by the host: the person's hooks (hooks/)
        self._hooking: set[asyncio.Task[list[HookOutcome]]] = set()
        # Told each valid call as validated, before it is decided (`tui-agent acp` shows the
        # arguments the call runs with); it must not block.
        self.on_validated: Callable[[ValidatedCall], None] | None = None

    def set_sandbox(self, policy: SandboxPolicy) -> None:
        """The session's sandbox from now on; calls approved under another are refused."""
        self.context = replace(self.context, sandbox=policy)

    def cancel(self) -> None:
        """Stop what has not started (a pending question too) and kill what runs."""
        self.cancel_requested = True
        if self._asking is not None:
            self._asking.cancel()
        for task in self._running:
            task.cancel()
        for hooking in self._hooking:
            hooking.cancel()

    async def run_round(
        self, calls: tuple[ToolCall, ...], emit: Emit, offered: Collection[str] | None = None
    ) -> CallRound:
        """Validate, ask and run one turn's calls; ``offered``: the tools its request offered
        (a call to any other is invalid, see ``validate_call``)."""
        results: dict[int, CallResult] = {}
        round_ = CallRound([])
        approved: list[_Approved] = []
        valid: list[tuple[int, ValidatedCall]] = []
        for index, call in enumerate(calls):
            item = validate_call(self.registry, call, offered)
            if isinstance(item, InvalidCall):
                emit(CallInvalid(call.id, call.name, item.error))
                self._decide(call, "invalid", digest="", by="policy", reason=item.error, emit=emit)
                self._finish(results, index, call, item.error, "invalid", emit)
            else:
                valid.append((index, item))
                if self.on_validated is not None:
                    self.on_validated(item)
        approve_rest = False
        for position, (index, vc) in enumerate(valid, 1):
            pre: list[HookOutcome] | None = None  # the PreToolUse hooks' outcomes, once run
            # Once; again when the approval mode changed while the call waited for its answer:
            # the question is withdrawn and the call decided under the new mode (refused in
            # plan mode, approved by an auto mode, or asked again).
            while True:
                if self.cancel_requested:
                    why = "the turn was cancelled"
                    self._decide(
                        vc.call, "cancel", digest=vc.digest, by="user", reason=why, emit=emit
                    )
                    self._finish(results, index, vc.call, CANCELLED, "cancelled", emit)
                    break
                size = len(vc.call.arguments.encode("utf-8", "surrogatepass"))
                refused = refusal(self.policy.mode, str(vc.spec.risk))  # plan mode
                if size > self.max_argument_bytes:
                    refused = (
                        f"arguments of {size} bytes are too large to show in full; not offered"
                    )
                if refused is not None:
                    self._decide(
                        vc.call, "refused", digest=vc.digest, by="policy", reason=refused, emit=emit
                    )
                    self._finish(results, index, vc.call, f"refused: {refused}", "denied", emit)
                    break
                # The hooks answer before the person is asked: nobody should approve a call a
                # hook then blocks, and a hook's "allow" (the person's own) spares the question.
                if pre is None:
                    pre = await self._hooked(HookEvent.PRE_TOOL_USE, vc, {}, emit)
                    if pre is None:  # Esc while they ran: decided as cancelled above
                        pre = []
                        continue
                hooked = deciding(pre)
                if hooked is not None and hooked.blocks:
                    why = hook_reason(hooked)
                    digest = vc.digest
                    self._decide(vc.call, "deny", digest=digest, by="hook", reason=why, emit=emit)
                    self._finish(results, index, vc.call, f"blocked by {why}", "denied", emit)
                    break
                if hooked is not None and hooked.verdict == "allow":
                    bound = bound_digest(vc.digest, sandbox := self._sandbox(vc, emit))
                    why = hook_reason(hooked)
                    self._decide(vc.call, "approve", digest=bound, by="hook", reason=why, emit=emit)
                    approved.append(_Approved(index, vc, vc.digest, hook_context(pre), sandbox))
                    break
                ask = hooked is not None and hooked.verdict == "ask"
                auto = (
                    None
                    if ask
                    else self.policy.auto_approval(
                        vc.spec.name, str(vc.spec.risk), vc.arguments, str(self.context.workspace)
                    )
                )
                if auto is not None or (approve_rest and not ask):
                    why = auto if auto is not None else "approved with the rest of this turn"
                    by = self._auto_by(vc, auto) if auto is not None else "user"
                    bound = bound_digest(vc.digest, sandbox := self._sandbox(vc, emit))
                    self._decide(vc.call, "approve", digest=bound, by=by, reason=why, emit=emit)
                    approved.append(_Approved(index, vc, vc.digest, hook_context(pre), sandbox))
                    break
                try:
                    decided = await self._ask(vc, position, len(valid), emit)
                except ModeChanged:
                    mode = str(self.policy.mode)
                    text = f"approval mode is now {mode}: {vc.spec.name} is decided again under it"
                    emit(Notice(text))
                    continue
                if decided is None:  # the user cancelled the turn
                    round_.asked_user = True
                    self.cancel_requested = True
                    self._finish(results, index, vc.call, CANCELLED, "cancelled", emit)
                    break
                decision, final = decided
                # Only a person's answer resets the auto-step count; an approval mode's never does.
                round_.asked_user = round_.asked_user or decision.by == "user"
                if decision.kind == "deny":
                    who = (
                        "denied by user" if decision.by == "user" else "denied by the approval mode"
                    )
                    text = who + (f": {decision.reason}" if decision.reason else "")
                    self._finish(results, index, vc.call, text, "denied", emit)
                    break
                if decision.remember is not None:
                    await self._remember(decision, emit)
                approve_rest = approve_rest or decision.approve_rest
                note = edited_note(final.canonical) if decision.kind == "edit" else ""
                note = hook_context(pre) + note
                approved.append(_Approved(index, final, final.digest, note, self._shown_sandbox))
                break
        if approved and not self.cancel_requested:
            await self._execute(approved, results, emit)
        for kept in approved:
            if kept.index not in results:
                text = kept.note + CANCELLED
                self._finish(results, kept.index, kept.call.call, text, "cancelled", emit)
        round_.cancelled = self.cancel_requested
        round_.results = [results[i] for i in sorted(results)]
        return round_

    def _sandbox(self, vc: ValidatedCall, emit: Emit) -> SandboxPolicy | None:
        """The policy an approval without a prompt binds; says once when it is unprotected."""
        policy = self.gate.policy_for(vc.spec, self.context)
        warning = self.gate.warning(policy)
        if warning and not self.gate.noticed:
            self.gate.noticed = True
            emit(Notice(f"{vc.spec.name} was approved without asking; {warning}", "warning"))
        return policy

    def _auto_by(self, vc: ValidatedCall, reason: str) -> DecidedBy:
        """Whether a kept rule or the approval mode approved the call (the reason says which)."""
        rule = self.policy.rules.matching(vc.spec.name, vc.arguments)
        return "rule" if rule is not None and rule.describe() == reason else "policy"

    async def _execute(
        self, approved: list[_Approved], results: dict[int, CallResult], emit: Emit
    ) -> None:
        """In announced order; consecutive read-only calls together."""
        reads: list[_Approved] = []
        for item in approved:
            if item.call.spec.risk == Risk.READ:
                reads.append(item)
                continue
            if reads:
                await asyncio.gather(*(self._run_one(read, results, emit) for read in reads))
                reads = []
            await self._run_one(item, results, emit)
        if reads:
            await asyncio.gather(*(self._run_one(read, results, emit) for read in reads))

    async def _run_one(self, item: _Approved, results: dict[int, CallResult], emit: Emit) -> None:
        vc, index, note = item.call, item.index, item.note
        if self.cancel_requested:
            return
        # What runs must be exactly what was shown and approved, under the same sandbox.
        current = self.gate.policy_for(vc.spec, self.context)
        why = self.gate.refusal(arguments_digest(vc.arguments), item.digest, item.sandbox, current)
        if why is not None:
            self._finish(results, index, vc.call, note + why, "denied", emit)
            return
        bound = bound_digest(item.digest, item.sandbox)  # as the decision recorded it
        self.recorder.append(
            ToolStartRecord(ts=time.time(), call_id=vc.call.id, digest=bound), sync=True
        )
        emit(ToolStarted(vc.call.id, vc.call.name))
        context = replace(
            self.gate.context_for(self.context, item.sandbox), call_id=vc.call.id, report=emit
        )
        run = vc.spec.run(vc.args, context)
        if self.checkpoints is not None:
            run = self.checkpoints.around(vc, context, run, emit, self.gate)
        task = asyncio.create_task(run)
        self._running.add(task)
        try:
            output = await task
        except asyncio.CancelledError:
            if cancelled_from_outside() or not self.cancel_requested:
                raise
            text = note + INTERRUPTED
            self._finish(results, index, vc.call, text, "interrupted", emit)
            return
        except Exception as exc:  # a tool's bug is the call's failure, not the app's
            text = f"{note}tool failed: {type(exc).__name__}: {exc}"
            self._finish(results, index, vc.call, text, "failed", emit)
            return
        finally:
            self._running.discard(task)
        status: CallStatus = "failed" if output.is_error else "done"
        response = {"output": output.text, "is_error": output.is_error, "status": status}
        post = await self._hooked(HookEvent.POST_TOOL_USE, vc, {"tool_response": response}, emit)
        told = hook_context(post or [])
        text = note + output.text + (f"\n{told.rstrip()}" if told else "")
        self._finish(results, index, vc.call, text, status, emit, output.images)

    async def _hooked(
        self, event: HookEvent, vc: ValidatedCall, fields: dict[str, object], emit: Emit
    ) -> list[HookOutcome] | None:
        """The outcomes of the call's hooks of ``event``; None when Esc stopped them."""
        if not self.hooks:
            return []
        payload = {
            "tool_name": vc.spec.name,
            "tool_input": copy.deepcopy(vc.arguments),  # what a hook gets cannot change what runs
            "call_id": vc.call.id,
            **fields,
        }
        task = asyncio.ensure_future(
            run_hooks(
                self.hooks,
                self.context,
                self.recorder,
                emit,
                event,
                payload,
                tool_name=vc.spec.name,
                call_id=vc.call.id,
            )
        )
        self._hooking.add(task)
        try:
            return await task
        except asyncio.CancelledError:
            if cancelled_from_outside() or not self.cancel_requested:
                raise
            return None
        finally:
            self._hooking.discard(task)

    def _finish(
        self,
        results: dict[int, CallResult],
        index: int,
        call: ToolCall,
        text: str,
        status: CallStatus,
        emit: Emit,
        images: tuple[ImagePart, ...] = (),
    ) -> None:
        """The call's one result: see ``record_result``."""
        results[index] = record_result(
            self.recorder,
            call,
            text,
            status,
            emit,
            cap=self.output_cap,
            fit=self.fit_output,
            images=images,
        )
