"""How a tool call was decided and how it ended: one spelling for the approver's answers, the
agent's events and the session's records."""

from __future__ import annotations

from typing import Literal

# What an approver answers.
AnswerKind = Literal["approve", "deny", "edit", "cancel"]
# What is decided and recorded: an answer, or the loop's own ("invalid": the arguments failed
# validation; "refused": the call cannot run as approved, e.g. under another sandbox).
DecisionKind = Literal[AnswerKind, "invalid", "refused"]
# Who answers: a person, or the approval mode when nobody is there to ask.
Answerer = Literal["user", "policy"]
# Who decided: also a kept approval rule, or a hook of the person's (hooks/; the reason names it).
DecidedBy = Literal[Answerer, "rule", "hook"]
# How a call ended, as the model's result says it.
CallStatus = Literal["done", "failed", "denied", "cancelled", "invalid", "interrupted"]
