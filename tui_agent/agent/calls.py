"""A complete turn's calls: validate, ask, run, and give every call exactly one result.

Invalid calls are never offered: the model gets the validation error. A decision is bound to
the call id and the digest of the arguments that were shown; what runs must hash the same.
Approved read-only calls run concurrently, the others in the order the model announced them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..approval.approver import ApprovalRequest, Approver
from ..approval.decision import Decision
from ..approval.policy import ApprovalPolicy
from ..session.records import DecisionRecord, ToolResultRecord, ToolStartRecord
from ..stream.turn import ToolCall
from ..tools.arguments import arguments_digest
from ..tools.registry import ToolRegistry
from ..tools.spec import Risk, ToolContext, ToolOutput
from ..tools.validation import InvalidCall, ValidatedCall, validate_call, validate_edited
from .events import AgentEvent, CallDecided, CallInvalid, ToolFinished, ToolStarted
from .recorder import SessionRecorder

Status = Literal["done", "failed", "denied", "cancelled", "invalid", "interrupted"]
MAX_EDIT_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class CallResult:
    call: ToolCall
    output: str
    is_error: bool
    status: Status


@dataclass
class CallRound:
    """The outcome of one turn's calls, in the order the model announced them."""

    results: list[CallResult]
    cancelled: bool = False
    asked_user: bool = False


def cap_output(text: str, limit: int) -> str:
    """Tool output sent to the model is capped, with a note saying how much was cut."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    kept = data[:limit].decode("utf-8", "ignore")
    return f"{kept}\n[output cut: {len(data) - limit} of {len(data)} bytes not shown]"


class CallRunner:
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
    ) -> None:
        self.registry = registry
        self.context = context
        self.policy = policy
        self.approver = approver
        self.recorder = recorder
        self.output_cap = output_cap
        self.max_argument_bytes = max_argument_bytes
        self._running: set[asyncio.Task[ToolOutput]] = set()
        self.cancel_requested = False

    def cancel(self) -> None:
        """Stop what has not started and kill what runs."""
        self.cancel_requested = True
        for task in self._running:
            task.cancel()

    async def run_round(
        self, calls: tuple[ToolCall, ...], emit: Callable[[AgentEvent], None]
    ) -> CallRound:
        results: dict[int, CallResult] = {}
        round_ = CallRound([])
        approved: list[tuple[int, ValidatedCall, str]] = []  # (position, call, digest decided)
        valid: list[tuple[int, ValidatedCall]] = []
        for index, call in enumerate(calls):
            item = validate_call(self.registry, call)
            if isinstance(item, InvalidCall):
                emit(CallInvalid(call.id, call.name, item.error))
                self._decide(call, "invalid", "", "policy", item.error, None, emit)
                self._finish(results, index, call, item.error, True, "invalid", emit)
            else:
                valid.append((index, item))
        approve_rest = False
        for position, (index, vc) in enumerate(valid, 1):
            if self.cancel_requested:
                self._finish(results, index, vc.call, "cancelled by user", True, "cancelled", emit)
                continue
            size = len(vc.call.arguments.encode("utf-8", "surrogatepass"))
            if size > self.max_argument_bytes:
                why = f"arguments of {size} bytes are too large to show in full; not offered"
                self._decide(vc.call, "refused", vc.digest, "policy", why, None, emit)
                self._finish(results, index, vc.call, f"refused: {why}", True, "denied", emit)
                continue
            auto = self.policy.auto_approval(vc.spec.name, str(vc.spec.risk), vc.arguments)
            if approve_rest or auto:
                by: Literal["policy", "rule"] = "rule" if auto and "allow" in auto else "policy"
                self._decide(vc.call, "approve", vc.digest, by, auto or "approve all", None, emit)
                approved.append((index, vc, vc.digest))
                continue
            round_.asked_user = True
            decided = await self._ask(vc, position, len(valid), emit)
            if decided is None:  # the user cancelled the turn
                self.cancel_requested = True
                self._finish(results, index, vc.call, "cancelled by user", True, "cancelled", emit)
                continue
            decision, final = decided
            if decision.kind == "deny":
                text = "denied by user" + (f": {decision.reason}" if decision.reason else "")
                self._finish(results, index, vc.call, text, True, "denied", emit)
                continue
            if decision.remember is not None:
                self.policy.rules.add(decision.remember)
            approve_rest = approve_rest or decision.approve_rest
            approved.append((index, final, final.digest))
        if approved and not self.cancel_requested:
            await self._execute(approved, results, emit)
        for index, vc, _digest in approved:
            if index not in results:
                self._finish(results, index, vc.call, "cancelled by user", True, "cancelled", emit)
        round_.cancelled = self.cancel_requested
        round_.results = [results[i] for i in sorted(results)]
        return round_

    async def _ask(
        self, vc: ValidatedCall, position: int, total: int, emit: Callable[[AgentEvent], None]
    ) -> tuple[Decision, ValidatedCall] | None:
        current = vc
        for _ in range(MAX_EDIT_ATTEMPTS + 1):
            request = ApprovalRequest(
                call_id=current.call.id,
                tool_name=current.spec.name,
                risk=str(current.spec.risk),
                arguments=current.arguments,
                canonical=current.canonical,
                digest=current.digest,
                position=position,
                total=total,
            )
            decision = await self.approver.decide(request)
            if decision.kind == "cancel":
                self._decide(vc.call, "cancel", current.digest, "user", None, None, emit)
                return None
            if decision.kind == "edit" and decision.edited_arguments is not None:
                edited = validate_edited(self.registry, vc.call, decision.edited_arguments)
                if isinstance(edited, InvalidCall):
                    emit(CallInvalid(vc.call.id, vc.call.name, f"edited: {edited.error}"))
                    continue
                self._decide(vc.call, "edit", edited.digest, "user", None, edited.canonical, emit)
                return decision, edited
            self._decide(
                vc.call, decision.kind, current.digest, "user", decision.reason, None, emit
            )
            return decision, current
        why = "the edited arguments were invalid too many times"
        self._decide(vc.call, "deny", vc.digest, "user", why, None, emit)
        return Decision(kind="deny", reason=why), vc

    def _decide(
        self,
        call: ToolCall,
        kind: str,
        digest: str,
        by: Literal["user", "policy", "rule"],
        reason: str | None,
        arguments: str | None,
        emit: Callable[[AgentEvent], None],
    ) -> None:
        self.recorder.append(
            DecisionRecord(
                ts=time.time(),
                call_id=call.id,
                decision=kind,  # type: ignore[arg-type]
                digest=digest,
                by=by,
                reason=reason,
                arguments=arguments,
            )
        )
        if kind != "invalid":
            emit(CallDecided(call.id, call.name, kind, by, reason))  # type: ignore[arg-type]

    async def _execute(
        self,
        approved: list[tuple[int, ValidatedCall, str]],
        results: dict[int, CallResult],
        emit: Callable[[AgentEvent], None],
    ) -> None:
        reads = [item for item in approved if item[1].spec.risk == Risk.READ]
        others = [item for item in approved if item[1].spec.risk != Risk.READ]
        if reads:
            await asyncio.gather(*(self._run_one(*item, results, emit) for item in reads))
        for item in others:
            if self.cancel_requested:
                break
            await self._run_one(*item, results, emit)

    async def _run_one(
        self,
        index: int,
        vc: ValidatedCall,
        decided_digest: str,
        results: dict[int, CallResult],
        emit: Callable[[AgentEvent], None],
    ) -> None:
        if self.cancel_requested:
            return
        if arguments_digest(vc.arguments) != decided_digest:
            # What runs must be exactly what was shown and approved.
            why = "refused: the arguments differ from the ones that were approved"
            self._finish(results, index, vc.call, why, True, "denied", emit)
            return
        self.recorder.append(
            ToolStartRecord(ts=time.time(), call_id=vc.call.id, digest=decided_digest), sync=True
        )
        emit(ToolStarted(vc.call.id, vc.call.name))
        task = asyncio.create_task(vc.spec.run(vc.args, self.context))
        self._running.add(task)
        try:
            output = await task
        except asyncio.CancelledError:
            if not self.cancel_requested:
                raise
            self._finish(results, index, vc.call, "interrupted by user", True, "interrupted", emit)
            return
        except Exception as exc:  # a tool's bug is the call's failure, not the app's
            text = f"tool failed: {type(exc).__name__}: {exc}"
            self._finish(results, index, vc.call, text, True, "failed", emit)
            return
        finally:
            self._running.discard(task)
        status: Status = "failed" if output.is_error else "done"
        self._finish(results, index, vc.call, output.text, output.is_error, status, emit)

    def _finish(
        self,
        results: dict[int, CallResult],
        index: int,
        call: ToolCall,
        text: str,
        is_error: bool,
        status: Status,
        emit: Callable[[AgentEvent], None],
    ) -> None:
        output = cap_output(text, self.output_cap)
        results[index] = CallResult(call, output, is_error, status)
        self.recorder.append(
            ToolResultRecord(
                ts=time.time(),
                call_id=call.id,
                name=call.name,
                output=output,
                is_error=is_error,
                status=status,
            ),
            sync=True,
        )
        emit(ToolFinished(call.id, call.name, status, output, is_error))
