"""Hooks: the person's own commands at the agent's moments (before and after a tool call, a
submitted message, a stop, a subagent's answer, a compaction, the session's start and end, a
notification), run in the command sandbox by default and answered as Claude Code's hooks answer.

Floor: beside mcp/ and prompting/ (it runs programs the way tools/ does); config/ models its
tables from ``config.py``, the agent loop runs them. No Textual.
"""

from .config import DEFAULT_TIMEOUT_S, TOOL_EVENTS, HookConfig, HookEvent, HookSource
from .listing import hook_line, hooks_report
from .runner import DeclaredHook, HookOutcome, HookPlace, Verdict, interpret, run_hook
from .session_hooks import SessionHooks, added_context, blocking, deciding

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "TOOL_EVENTS",
    "DeclaredHook",
    "HookConfig",
    "HookEvent",
    "HookOutcome",
    "HookPlace",
    "HookSource",
    "SessionHooks",
    "Verdict",
    "added_context",
    "blocking",
    "deciding",
    "hook_line",
    "hooks_report",
    "interpret",
    "run_hook",
]
