"""Reasoning effort (``low``, ``medium``, ``high``) as each protocol asks for it.

Responses: ``reasoning.effort``; Chat Completions: ``reasoning_effort``; Gemini Interactions:
``generation_config.thinking_level``: the level itself. Anthropic (``thinking.budget_tokens``)
and Gemini generateContent (``generationConfig.thinkingConfig.thinkingBudget``) take a number of
tokens, from ``BUDGETS``; Anthropic's must stay under ``max_tokens``, so it is capped to leave
1,024 of them for the answer (and is never under the 1,024 Anthropic asks for). A profile's own
``options`` are merged after this and win. A model that takes no such control refuses the
request (HTTP 400), shown as any refused request is.
"""

from __future__ import annotations

EFFORTS = ("low", "medium", "high")
BUDGETS = {"low": 1024, "medium": 4096, "high": 16384}  # thinking tokens by level
_MIN_BUDGET = 1024  # Anthropic refuses less
_ANSWER_TOKENS = 1024  # of max_tokens kept for the answer itself


def anthropic_budget(effort: str, max_tokens: int) -> int:
    """``thinking.budget_tokens`` for ``effort`` under an output budget of ``max_tokens``."""
    return max(_MIN_BUDGET, min(BUDGETS[effort], max_tokens - _ANSWER_TOKENS))
