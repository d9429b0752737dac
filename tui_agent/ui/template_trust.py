"""Trust this workspace's prompt templates (``.tui-agent/commands/*.md``)? Each template's name
and first lines, then one key: t trusts exactly these (an edited or added file is asked about
again), n or Esc does not. Asked by /trust-templates; a key decides only once armed."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..prompting.templates import PromptTemplate, trust
from .sanitize import visible_line
from .screens.key_guard import KeyGuard

PREVIEW_LINES = 4


class TemplateTrustScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    TemplateTrustScreen { align: center middle; }
    TemplateTrustScreen > Vertical {
        width: 90%; height: auto; max-height: 90%; border: round $warning;
        background: $surface; padding: 0 1;
    }
    TemplateTrustScreen VerticalScroll { height: auto; max-height: 20; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "trust", "Trust"),
        Binding("n", "refuse", "Not now"),
        Binding("escape", "refuse", "Not now"),
    ]

    def __init__(self, templates: list[PromptTemplate]) -> None:
        super().__init__()
        self.templates = templates
        self.guard = KeyGuard(self)

    def compose(self) -> ComposeResult:
        lines: list[str] = []
        for template in self.templates:
            lines.append(f"/{template.name} — {template.description}")
            body = template.body.splitlines()
            lines += [f"    {line}" for line in body[:PREVIEW_LINES]]
            if len(body) > PREVIEW_LINES:
                lines.append(f"    … ({len(body) - PREVIEW_LINES} more lines)")
        with Vertical():
            yield Static(
                "This workspace's .tui-agent/commands/ holds prompt templates. They become "
                "/commands only once you trust them:"
            )
            with VerticalScroll():
                yield Static("\n".join(visible_line(line) for line in lines), markup=False)
            yield Static("t: trust these templates for this workspace · n or Esc: not now")

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


def ask_trust(app: Any) -> None:
    from .slash_commands import templates_of

    if app.host is None:
        return
    _, untrusted = templates_of(app)
    if not untrusted:
        app.notify("no untrusted prompt templates in this workspace")
        return
    workspace = app.host.workspace

    def answered(yes: bool | None) -> None:
        if yes:
            trust(workspace, untrusted)
            names = ", ".join(f"/{t.name}" for t in untrusted)
            app.notify(f"trusted: {names}", markup=False)

    app.push_screen(TemplateTrustScreen(untrusted), answered)
