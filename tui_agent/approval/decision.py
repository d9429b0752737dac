"""What the user decided about one tool call."""

from __future__ import annotations

from dataclasses import dataclass

from ..call_outcome import Answerer, AnswerKind
from .rules import Rule


@dataclass(frozen=True)
class Decision:
    """One answer to an approval request.

    - ``reason``: for ``deny``, the user's one-line reason, sent to the model as the call's result.
    - ``edited_arguments``: for ``edit``, the new arguments as JSON text (validated by the loop).
    - ``remember``: for ``approve``, a rule to keep for the rest of the session.
    - ``persist``: also save ``remember`` to config.toml (the "saved to config" scope).
    - ``approve_rest``: for ``approve``, approve every remaining call of this turn too.
    - ``by``: ``"user"`` when a person decided; ``"policy"`` when nobody was there to ask
      (``tui-agent run``): such a decision never counts as a person's, so it does not reset the
      auto-step count, and the model is told the approval mode denied the call.
    """

    kind: AnswerKind
    reason: str | None = None
    edited_arguments: str | None = None
    remember: Rule | None = None
    persist: bool = False
    approve_rest: bool = False
    by: Answerer = "user"

    def __post_init__(self) -> None:
        # Catch a confused caller early: each field belongs to exactly one kind.
        if self.reason is not None and self.kind != "deny":
            raise ValueError("only a deny decision carries a reason")
        if (self.edited_arguments is not None) != (self.kind == "edit"):
            raise ValueError("an edit decision, and only it, carries edited_arguments")
        if (self.remember is not None or self.approve_rest) and self.kind != "approve":
            raise ValueError("only an approve decision can remember a rule or approve the rest")
        if self.persist and self.remember is None:
            raise ValueError("persist needs a rule to remember")


def approve(
    *, remember: Rule | None = None, persist: bool = False, approve_rest: bool = False
) -> Decision:
    """Run the call (optionally keeping a rule, or approving the rest of the turn)."""
    return Decision("approve", remember=remember, persist=persist, approve_rest=approve_rest)


def deny(reason: str | None = None, *, by: Answerer = "user") -> Decision:
    """Do not run the call; ``reason`` (if any) is told to the model and the turn continues."""
    return Decision("deny", reason=reason, by=by)


def edit(text: str) -> Decision:
    """Run the call with the user's edited arguments (JSON text); the model is told."""
    return Decision("edit", edited_arguments=text)


def cancel() -> Decision:
    """Stop the whole turn (Esc)."""
    return Decision("cancel")
