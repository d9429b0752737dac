"""The "compacted here" divider in the transcript: everything above stays shown; from here on
the model gets the summary (shown under the line, muted) instead of the older messages."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ..sanitize import safe_text

SUMMARY_LINES = 8  # lines of the summary shown under the divider


@dataclass(frozen=True, slots=True)
class DividerSnapshot:
    line: str
    summary: str

    def build(self) -> CompactionDivider:
        return CompactionDivider(self.line, self.summary)


class CompactionDivider(Static):
    DEFAULT_CSS = """
    CompactionDivider {
        height: auto;
        margin: 1 0;
        padding: 0 1;
        border-top: heavy $warning 60%;
        border-bottom: heavy $warning 60%;
        color: $text-muted;
    }
    """

    def __init__(self, line: str, summary: str) -> None:
        lines = summary.strip().splitlines()
        shown = "\n".join(lines[:SUMMARY_LINES])
        more = len(lines) - SUMMARY_LINES
        tail = f"\n… {more} more lines (the export has the whole summary)" if more > 0 else ""
        body = Text.assemble(
            ("✂ ", "bold"),
            safe_text(line),
            "\n",
            safe_text(f"summary: {shown}{tail}"),
        )
        super().__init__(body)
        self.line = line
        self.summary = summary

    @property
    def settled(self) -> bool:
        return True

    def snapshot(self) -> DividerSnapshot:
        return DividerSnapshot(self.line, self.summary)
