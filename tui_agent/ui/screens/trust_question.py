"""Trust something this workspace declares? What it declares, exactly and inert, then one key:
t trusts it, n or Esc does not. A key decides only once the screen is armed (``GuardedModal``):
typing never trusts.

The one implementation behind the trust questions for a workspace's ``.mcp.json``
(``mcp_trust``) and its prompt templates (``template_trust``); each says only its text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ..sanitize import visible_line
from .key_guard import GuardedModal


class TrustQuestion(GuardedModal[bool]):
    """Dismisses with True for an armed t, False for n or Esc.

    ``intro`` and ``keys`` are shown as given; every line of ``lines`` through ``visible_line``,
    never as markup. With ``scrolls`` the lines are in a ``VerticalScroll`` (the subclass's CSS
    sizes it); without, the screen's ``#lines`` are them.
    """

    DEFAULT_CSS = """
    TrustQuestion { align: center middle; }
    TrustQuestion > Vertical {
        width: 90%; height: auto; border: round $warning; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "trust", "Trust"),
        Binding("n", "refuse", "Not now"),
        Binding("escape", "refuse", "Not now"),
    ]
    scrolls: ClassVar[bool] = False

    def __init__(self, intro: str, lines: Iterable[str], keys: str) -> None:
        super().__init__()
        self.intro = intro
        self.lines = list(lines)
        self.keys = keys

    def compose(self) -> ComposeResult:
        lines = Static(
            "\n".join(visible_line(line) for line in self.lines), id="lines", markup=False
        )
        with Vertical():
            yield Static(self.intro)
            yield VerticalScroll(lines) if self.scrolls else lines
            yield Static(self.keys)

    def action_trust(self) -> None:
        if self.guard.decides():
            self.dismiss(True)

    def action_refuse(self) -> None:
        self.dismiss(False)
