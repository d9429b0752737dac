"""``[[hooks]]`` in config.toml (and a trusted workspace's ``.tui-agent/hooks.toml``): one
command the app runs at one of the agent's moments.

The event names are Claude Code's, so a hook script written for it ports with at most a path
change. This module depends on pydantic only, so config/ can import it.
"""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import PurePath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)
DEFAULT_TIMEOUT_S = 60.0

# Where a hook was declared: the person's own config.toml, or a workspace's hooks.toml (which
# runs only once trusted, and whose "allow" is never taken).
HookSource = Literal["config", "workspace"]


class HookEvent(StrEnum):
    PRE_TOOL_USE = "PreToolUse"
    POST_TOOL_USE = "PostToolUse"
    USER_PROMPT_SUBMIT = "UserPromptSubmit"
    STOP = "Stop"
    SUBAGENT_STOP = "SubagentStop"
    PRE_COMPACT = "PreCompact"
    SESSION_START = "SessionStart"
    SESSION_END = "SessionEnd"
    NOTIFICATION = "Notification"


# The events a matcher applies to, and what it matches: the tool's name, the subagent's agent
# name (the others have nothing to match).
TOOL_EVENTS = frozenset({HookEvent.PRE_TOOL_USE, HookEvent.POST_TOOL_USE})
MATCHED_EVENTS = TOOL_EVENTS | {HookEvent.SUBAGENT_STOP}


class HookConfig(BaseModel):
    """One ``[[hooks]]`` table. ``command`` is an argv (no shell); ``matcher`` a regular
    expression the whole tool name (SubagentStop: the agent's name) must match (absent, ``""``
    or ``"*"``: every one)."""

    model_config = _STRICT

    event: HookEvent = Field(strict=False)  # TOML gives a string
    command: list[str] = Field(min_length=1)
    matcher: str | None = None
    timeout: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=3600, strict=False)
    name: str | None = None
    unconfined: bool = False  # run outside the command sandbox

    @field_validator("command")
    @classmethod
    def _program_named(cls, argv: list[str]) -> list[str]:
        if not argv[0].strip():
            raise ValueError("command[0] must name a program")
        if any("\0" in part for part in argv):
            raise ValueError("command must not contain NUL characters")
        return argv

    @field_validator("matcher")
    @classmethod
    def _matcher_compiles(cls, value: str | None) -> str | None:
        if value not in (None, "", "*"):
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"matcher is not a regular expression: {exc}") from None
        return value

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("name must not be empty")
        return value

    @property
    def label(self) -> str:
        """How the hook is named on the card, in events and in ``by: hook NAME``."""
        return self.name or PurePath(self.command[0]).name or self.command[0]

    def matches(self, tool_name: str | None) -> bool:
        """True when the hook applies to a call of ``tool_name`` (SubagentStop: to a subagent
        of that agent; None: an event without one)."""
        if self.event not in MATCHED_EVENTS or self.matcher in (None, "", "*"):
            return True
        assert self.matcher is not None
        return tool_name is not None and re.fullmatch(self.matcher, tool_name) is not None
