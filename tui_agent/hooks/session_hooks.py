"""The hooks of one session: which apply to a moment, run together, and what they decide.

Matching hooks of one moment run concurrently (as in Claude Code), each with its own timeout;
their outcomes come back in the order they were declared.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from .config import HookEvent
from .runner import DeclaredHook, HookOutcome, HookPlace, run_hook


class SessionHooks:
    """``declared`` in order (the person's config first, then a trusted workspace's)."""

    def __init__(
        self, declared: Sequence[DeclaredHook], place: HookPlace, session_id: str = ""
    ) -> None:
        self.declared = tuple(declared)
        self.place = place
        self.session_id = session_id
        self.transcript_path = ""  # the session file, when there is one

    def __bool__(self) -> bool:
        return bool(self.declared)

    def matching(self, event: HookEvent, tool_name: str | None = None) -> list[DeclaredHook]:
        return [
            hook
            for hook in self.declared
            if hook.config.event == event and hook.config.matches(tool_name)
        ]

    def payload(self, event: HookEvent, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Claude Code's common fields, tui-agent's own (``workspace``), then ``fields``."""
        workspace = str(self.place.workspace)
        return {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": workspace,
            "hook_event_name": str(event),
            "workspace": workspace,
            **fields,
        }

    async def run(
        self, event: HookEvent, fields: Mapping[str, Any], tool_name: str | None = None
    ) -> list[HookOutcome]:
        """Every hook of ``event`` that matches ``tool_name``, run together."""
        hooks = self.matching(event, tool_name)
        if not hooks:
            return []
        payload = self.payload(event, fields)
        return list(await asyncio.gather(*(run_hook(h, payload, self.place) for h in hooks)))


def deciding(outcomes: Sequence[HookOutcome]) -> HookOutcome | None:
    """The outcome that decides a tool call before it is asked about: the first that blocks or
    denies, else the first that asks, else the first "allow" of the person's own config (a
    workspace's hook can never approve a call); None: the person is asked as usual."""
    for wanted in (("block", "deny"), ("ask",)):
        for outcome in outcomes:
            if outcome.verdict in wanted:
                return outcome
    for outcome in outcomes:
        if outcome.verdict == "allow" and outcome.source == "config":
            return outcome
    return None


def blocking(outcomes: Sequence[HookOutcome]) -> HookOutcome | None:
    """The first outcome that blocks (exit 2, ``decision: block``, a deny)."""
    return next((outcome for outcome in outcomes if outcome.blocks), None)


def added_context(outcomes: Sequence[HookOutcome]) -> str:
    """What the hooks add for the model, one block per hook that said something."""
    return "\n\n".join(o.context for o in outcomes if o.context)
