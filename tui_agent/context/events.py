"""What the agent tells the layers above about the context window and compaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CompactionReason = Literal["manual", "auto", "overflow"]


@dataclass(frozen=True, slots=True)
class ContextUpdate:
    """After each turn (and each compaction): the tokens the conversation holds now, and the
    window (None when unknown)."""

    used: int
    window: int | None


@dataclass(frozen=True, slots=True)
class CompactionStarted:
    reason: CompactionReason
    tokens_before: int


@dataclass(frozen=True, slots=True)
class Compacted:
    """The summary now stands for ``replaced`` messages; ``kept`` follow it verbatim."""

    reason: CompactionReason
    tokens_before: int
    tokens_after: int
    replaced: int
    kept: int
    summary: str


@dataclass(frozen=True, slots=True)
class CompactionFailed:
    """Nothing changed: the conversation is as it was before."""

    reason: CompactionReason
    message: str


@dataclass(frozen=True, slots=True)
class ResultsCut:
    """The newest tool results were cut to fit the window, each with a note for the model:
    they, not the older conversation, kept the request from fitting, so summarizing what is
    older could not have helped."""

    reason: CompactionReason
    tokens_before: int
    tokens_after: int
    names: tuple[str, ...]  # the tools whose results were cut

    def text(self) -> str:
        names = ", ".join(self.names)
        return (
            f"the newest tool result ({names}) did not fit the context window: cut to fit, "
            f"with a note for the model; {self.tokens_before:,} -> {self.tokens_after:,} tokens"
        )


@dataclass(frozen=True, slots=True)
class ContextOverflow:
    """The provider refused a request as larger than the model's window."""

    message: str
    window: int | None  # the limit the error named, if it named one


def context_line(event: object) -> str | None:
    """One line for `tui-agent run`'s stderr about a compaction or an overflow, else None."""
    if isinstance(event, Compacted):
        return (
            f"compacted ({event.reason}): {event.replaced} messages summarized, "
            f"{event.tokens_before:,} -> {event.tokens_after:,} tokens"
        )
    if isinstance(event, ResultsCut):
        return f"warning: {event.text()}"
    if isinstance(event, CompactionFailed):
        return f"warning: {event.message}"
    if isinstance(event, ContextOverflow):
        return f"error: {event.message}; compacting and sending again"
    return None


def divider_text(event: Compacted) -> str:
    """The "compacted here" line the transcript, replay and export show."""
    how = {"auto": "automatically", "overflow": "after an overflow", "manual": "on request"}
    kept = f", the last {event.kept} sent as they are" if event.kept else ""
    return (
        f"compacted here ({how.get(event.reason, event.reason)}): {event.replaced} earlier "
        f"messages summarized for the model{kept}; {event.tokens_before:,} -> "
        f"{event.tokens_after:,} tokens"
    )
