"""Re-run a command the sandbox blocked, unconfined, once: a new call with its own approval.

When a confined command's result says the sandbox (probably) stopped it (``sandbox.notes``), the
person may run the same arguments again with the sandbox off. That is a new call (id
``ID-unconfined``): its own approval, which shows the exact command and "UNCONFINED", its own
decision record and tool_start record, both bound by hash to the arguments and the unconfined
policy, and the check that what runs is what was approved. It runs only if approved.

The model did not ask for this call, so it is not put into the conversation as a tool call of
its own (no protocol accepts a result for a call the model never made). Instead its result is
kept as a note (a ``rerun`` note record) that goes to the model at the start of the person's
next message: the model sees it on the next turn.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, replace
from types import MappingProxyType

from ..approval.approver import ApprovalRequest
from ..conversation.messages import AssistantMessage, Message, ToolResultMessage
from ..sandbox.binding import bound_digest
from ..sandbox.notes import RERUN_HINT
from ..session.records import NoteRecord, ToolStartRecord
from ..stream.turn import ToolCall
from ..tools.arguments import arguments_digest
from ..tools.validation import ValidatedCall, validate_call
from .call_results import Emit, cap_output
from .calls import CallRunner

WARNING = "re-run UNCONFINED, outside the sandbox that blocked it, with all your rights"
SUFFIX = "-unconfined"  # the re-run's call id: the model's call's id and this


@dataclass(frozen=True, slots=True)
class Rerun:
    call: ToolCall  # the new call (id ID-unconfined), the model's arguments
    output: str
    is_error: bool

    def note(self) -> str:
        """What the model is told on the next turn."""
        state = "failed" if self.is_error else "succeeded"
        original = self.call.id.removesuffix(SUFFIX)
        return (
            f"[The user re-ran your {self.call.name} call {original}"
            f" unconfined (sandbox off) after the sandbox blocked it; it {state}. Its output:]\n"
            f"{self.output}"
        )


def blocked_call(messages: list[Message]) -> ToolCall | None:
    """The latest call whose result says the sandbox blocked it (and may be re-run), if any."""
    calls = {c.id: c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
    for message in reversed(messages):
        if isinstance(message, ToolResultMessage) and RERUN_HINT in message.output:
            return calls.get(message.call_id)
    return None


async def rerun_unconfined(runner: CallRunner, call: ToolCall, emit: Emit) -> Rerun | None:
    """Ask for and, if approved, run ``call``'s arguments once with the sandbox off."""
    again = replace(call, id=call.id + SUFFIX)
    vc = validate_call(runner.registry, again)
    if not isinstance(vc, ValidatedCall) or vc.spec.sandbox is None:
        return None
    confined = runner.gate.policy_for(vc.spec, runner.context)
    assert confined is not None
    policy = confined.unconfined()
    request = ApprovalRequest(
        call_id=again.id,
        tool_name=vc.spec.name,
        risk=str(vc.spec.risk),
        arguments=MappingProxyType(copy.deepcopy(vc.arguments)),
        canonical=vc.canonical,
        digest=bound_digest(vc.digest, policy),
        position=1,
        total=1,
        sandbox=policy.label(),
        sandbox_warning=WARNING,
        claims=vc.spec.claims,
    )
    decision = await runner.decision_confirmed(request, policy, emit)
    runner._decide(
        again,
        decision.kind,
        digest=request.digest,
        by=decision.by,
        reason=decision.reason,
        emit=emit,
    )
    if decision.kind != "approve":
        return None
    # What runs is what was approved: the same arguments, under the unconfined policy.
    if bound_digest(arguments_digest(vc.arguments), policy) != request.digest:
        return None
    runner.recorder.append(
        ToolStartRecord(ts=time.time(), call_id=again.id, digest=request.digest), sync=True
    )
    try:
        output = await vc.spec.run(vc.args, replace(runner.context, sandbox=policy))
        text, failed = output.text, output.is_error
    except Exception as exc:  # a tool's bug is the call's failure
        text, failed = f"tool failed: {type(exc).__name__}: {exc}", True
    done = Rerun(again, cap_output(text, runner.output_cap), failed)
    # For the person (export, replay): what ran unconfined, exactly, and how it ended.
    state = "failed" if failed else "done"
    shown = f"re-ran {vc.spec.name} {vc.canonical} UNCONFINED (sandbox off): {state}\n{done.output}"
    runner.recorder.append(NoteRecord(ts=time.time(), kind="rerun", text=shown), sync=True)
    return done
