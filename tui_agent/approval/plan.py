"""Plan mode: the model may look but not change anything.

While the approval mode is ``plan``, each request offers the model only the read-risk tools and
its system prompt says it is planning; a write, execute or network call it makes anyway (a tool
it remembers from earlier in the conversation) is refused without asking, and told why. Read
calls run without a question, as in auto-read. No I/O here: the loop and the call runner ask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from .policy import READ_RISK, ApprovalMode

T = TypeVar("T")

PLAN_PROMPT = (
    "# Plan mode\n\n"
    "Plan mode is on: you are planning, not acting. Only read-only tools are available; use "
    "them to look at what you need, then answer with a concrete plan (the steps, the files, "
    "the commands) for the user to review. Do not try to write files or run commands: such "
    "calls are refused until the user turns plan mode off."
)
PLAN_REFUSAL = (
    "plan mode is on: only read-only tools run while planning. Put this step in your plan "
    "instead; the user turns plan mode off (F3 or /plan) before anything is changed"
)


def planning(mode: ApprovalMode | str) -> bool:
    return str(mode) == ApprovalMode.PLAN


def refusal(mode: ApprovalMode | str, risk: str) -> str | None:
    """Why a call of ``risk`` is refused in ``mode`` (None: it is not)."""
    return PLAN_REFUSAL if planning(mode) and risk != READ_RISK else None


def offered(
    mode: ApprovalMode | str,
    tools: Sequence[T],
    name_of: Callable[[T], str],
    risk_of: Callable[[str], str | None],
) -> list[T]:
    """The tools a request offers in ``mode``: all of them, or in plan mode the read-risk ones."""
    if not planning(mode):
        return list(tools)
    return [tool for tool in tools if risk_of(name_of(tool)) == READ_RISK]


def system_prompt(mode: ApprovalMode | str, base: str) -> str:
    """The system prompt of a request in ``mode``: in plan mode, with the planning note."""
    if not planning(mode):
        return base
    return f"{base}\n\n{PLAN_PROMPT}" if base else PLAN_PROMPT
