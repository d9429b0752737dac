"""The sandbox side of asking and running a call: which policy a call runs under, what its
approval shows, the once-a-session extra confirmation, and the check that what runs is what
was approved (the approval's hash binds the policy: a call approved as sandboxed never runs
unconfined; a change of mode after approval refuses the call)."""

from __future__ import annotations

from dataclasses import replace

from ..sandbox.binding import bound_digest
from ..sandbox.detect import Capabilities, detect
from ..sandbox.policy import SandboxPolicy
from ..sandbox.protections import approval_warning
from ..sandbox.spawner import prepare as prepare_fork_server
from ..tools.spec import ToolContext, ToolSpec

CONFIRM_UNPROTECTED = (
    "Confirm once for this session: {warning}. Approve again to run it so; deny to not run it."
)


class SandboxGate:
    def __init__(self, capabilities: Capabilities | None = None) -> None:
        self._caps = capabilities
        self.confirmed = False  # a person confirmed running without a protection
        self.noticed = False  # the user was told an auto-approved call runs without one

    @property
    def caps(self) -> Capabilities:
        if self._caps is None:
            self._caps = detect()
        return self._caps

    @staticmethod
    def policy_for(spec: ToolSpec, context: ToolContext) -> SandboxPolicy | None:
        """None for a tool that runs no program. A confined one starts the sandbox's fork
        server if it is not running (sandbox/spawner.py): it is ready by the time the call,
        asked about or approved, runs."""
        if spec.sandbox is None:
            return None
        policy = spec.sandbox.apply(context.sandbox)
        if policy.confined:
            prepare_fork_server()
        return policy

    def warning(self, policy: SandboxPolicy | None) -> str:
        return approval_warning(policy, self.caps)

    def confirmation(self, policy: SandboxPolicy | None) -> str:
        """The extra question for the session's first call without a protection, or ''."""
        warning = self.warning(policy)
        if not warning or self.confirmed:
            return ""
        return CONFIRM_UNPROTECTED.format(warning=warning)

    @staticmethod
    def refusal(
        arguments_digest: str,
        approved_digest: str,
        approved: SandboxPolicy | None,
        current: SandboxPolicy | None,
    ) -> str | None:
        """Why the call may not run now, or None."""
        if bound_digest(arguments_digest, current) == bound_digest(approved_digest, approved):
            return None
        if arguments_digest != approved_digest:
            return "refused: the arguments differ from the ones that were approved"
        was = approved.label() if approved else "none"
        now = current.label() if current else "none"
        return (
            f"refused: the sandbox changed after the call was approved (approved under {was}, "
            f"now {now}); it was not run"
        )

    @staticmethod
    def context_for(context: ToolContext, approved: SandboxPolicy | None) -> ToolContext:
        return context if approved is None else replace(context, sandbox=approved)
