""" "Sandbox: what is protected": the doctor's findings for this session's sandbox; Esc closes."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..sanitize import visible


class SandboxReport(ModalScreen[None]):
    DEFAULT_CSS = """
    SandboxReport { align: center middle; }
    SandboxReport > Vertical {
        width: 90%; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    SandboxReport #missing { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Sandbox: what is protected (as tui-agent doctor says) · Esc closes"))
            yield Static(Text(visible(self.text)), id="report")
            if "[MISSING]" in self.text:
                yield Static(
                    Text("A protection is missing: commands ask once more before they run so."),
                    id="missing",
                )

    def action_close(self) -> None:
        self.dismiss()
