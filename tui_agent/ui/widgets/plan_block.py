"""An agent's plan in the transcript: a compact block of its entries, updated in place.

An ACP agent sends its plan whole each time it changes (``session/update`` ``plan``); the router
keeps one block per prompt and gives it each new plan (``show``). Each entry is a line: a mark
for its status (``✓`` completed, ``▸`` in progress, ``○`` pending), the entry, and its priority
when it is not medium. The entries are the agent's words: shown sanitized, markup never parsed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ...agent.events import PlanEntry
from ..sanitize import safe_text

_MARKS: dict[str, tuple[str, str]] = {
    "completed": ("✓ ", "dim"),
    "in_progress": ("▸ ", "bold"),
}
_PENDING = ("○ ", "")


def plan_lines(entries: Sequence[PlanEntry]) -> Text:
    done = sum(1 for entry in entries if entry.status == "completed")
    text = Text.assemble(("Plan", "bold"), (f"  {done}/{len(entries)} done", "dim"))
    for entry in entries:
        mark, style = _MARKS.get(entry.status, _PENDING)
        text.append("\n")
        text.append(mark, style)
        text.append_text(safe_text(entry.content, style, one_line=True))
        if entry.priority in ("high", "low"):
            text.append(f"  {entry.priority}", "dim")
        elif entry.priority != "medium":
            text.append("  ")
            text.append_text(safe_text(entry.priority, "dim", one_line=True))
    return text


@dataclass(frozen=True, slots=True)
class PlanSnapshot:
    entries: tuple[PlanEntry, ...]

    def build(self) -> PlanBlock:
        block = PlanBlock(self.entries)
        block.settle()
        return block


class PlanBlock(Static):
    """The agent's plan; ``show`` replaces it with a newer one, ``settle`` once no more come
    (until then the transcript keeps it mounted)."""

    DEFAULT_CSS = """
    PlanBlock {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: outer $secondary;
    }
    """

    def __init__(self, entries: Sequence[PlanEntry]) -> None:
        self.entries = tuple(entries)
        self._settled = False
        super().__init__(plan_lines(self.entries))

    def show(self, entries: Sequence[PlanEntry]) -> None:
        self.entries = tuple(entries)
        self.update(plan_lines(self.entries))

    def settle(self) -> None:
        self._settled = True

    @property
    def settled(self) -> bool:
        return self._settled

    def snapshot(self) -> PlanSnapshot:
        return PlanSnapshot(self.entries)
