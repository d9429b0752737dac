"""Trust this workspace's ``.mcp.json``? The exact commands and URLs it declares, then one key:
t starts them (and remembers this exact file for this workspace), n or Esc starts nothing.
A key decides only once the screen is armed (``KeyGuard``): typing never trusts."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...mcp.workspace_file import WorkspaceServers
from ..sanitize import visible_line
from .key_guard import KeyGuard


class McpTrustScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    McpTrustScreen { align: center middle; }
    McpTrustScreen > Vertical {
        width: 90%; height: auto; border: round $warning; background: $surface; padding: 0 1;
    }
    McpTrustScreen #commands { color: $text; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "trust", "Trust and start"),
        Binding("n", "refuse", "Not now"),
        Binding("escape", "refuse", "Not now"),
    ]

    def __init__(self, declared: WorkspaceServers) -> None:
        super().__init__()
        self.declared = declared
        self.guard = KeyGuard(self)

    def compose(self) -> ComposeResult:
        lines = "\n".join(visible_line(line) for line in self.declared.describe())
        with Vertical():
            yield Static(
                visible_line(
                    f"This workspace's {self.declared.path.name} declares MCP servers. "
                    "Nothing of it runs until you trust it:"
                )
            )
            yield Static(lines, id="commands", markup=False)
            yield Static(
                "t: trust this file for this workspace and start them · n or Esc: not now "
                "(asked again next time; an edited file is asked again)"
            )

    def on_mount(self) -> None:
        self.guard.mount()

    def on_unmount(self) -> None:
        self.guard.unmount()

    def on_screen_resume(self) -> None:
        self.guard.arm()

    def on_screen_suspend(self) -> None:
        self.guard.stop()

    def action_trust(self) -> None:
        if self.guard.decides():
            self.dismiss(True)

    def action_refuse(self) -> None:
        self.dismiss(False)
