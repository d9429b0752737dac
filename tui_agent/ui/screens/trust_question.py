"""Trust something this workspace declares? What it declares, exactly, whole and inert, then one
key: t trusts it, n or Esc does not. A key decides only once the screen is armed
(``GuardedModal``): typing never trusts. What does not fit scrolls, and then t trusts only once
the person has scrolled to its end (the keys line says so, with how many lines are below): what
was never on screen is never trusted.

The one implementation behind the trust questions of a workspace (``ui/workspace_trust.py``:
its AGENTS.md, templates and .mcp.json at once) and of its prompt templates alone
(``template_trust``); each says only its text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ..sanitize import exact
from .key_guard import GuardedModal


class TrustQuestion(GuardedModal[bool]):
    """Dismisses with True for an armed t once everything was seen, False for n or Esc.

    ``intro`` and ``keys`` are shown as given; every line of ``lines`` through ``exact``,
    never as markup, in a ``VerticalScroll`` (``#scroll``) that takes what the screen has left.
    """

    DEFAULT_CSS = """
    TrustQuestion { align: center middle; }
    TrustQuestion > Vertical {
        width: 90%; height: auto; border: round $warning; background: $surface; padding: 0 1;
    }
    TrustQuestion #scroll { height: auto; max-height: 60vh; }
    TrustQuestion #keys.-unread { color: $warning; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "trust", "Trust"),
        Binding("n", "refuse", "Not now"),
        Binding("escape", "refuse", "Not now"),
        Binding("down", "scroll('down')", show=False),
        Binding("up", "scroll('up')", show=False),
        Binding("pagedown,space", "scroll('page_down')", show=False),
        Binding("pageup", "scroll('page_up')", show=False),
        Binding("end", "scroll('end')", show=False),
        Binding("home", "scroll('home')", show=False),
    ]

    def __init__(self, intro: str, lines: Iterable[str], keys: str) -> None:
        super().__init__()
        self.intro = intro
        self.lines = list(lines)
        self.keys = keys
        self.seen_end = False  # scrolled to the end at least once
        self._shown_keys = ""

    def compose(self) -> ComposeResult:
        lines = Static(
            "\n".join(exact(line, one_line=True) for line in self.lines), id="lines", markup=False
        )
        with Vertical():
            yield Static(self.intro)
            yield VerticalScroll(lines, id="scroll")
            yield Static(Text(self.keys), id="keys")

    def on_mount(self) -> None:
        scroll = self.query_one("#scroll", VerticalScroll)
        self.watch(scroll, "scroll_y", self._moved, init=False)
        self.watch(scroll, "virtual_size", self._moved, init=False)
        self.set_interval(0.1, self._moved)  # the layout settles (or the terminal resizes)

    @property
    def below(self) -> int:
        """How many rows of what is trusted are below the visible ones (0: all seen or shown)."""
        scroll = self.query_one("#scroll", VerticalScroll)
        return max(0, round(scroll.max_scroll_y - scroll.scroll_y))

    def read_all(self) -> bool:
        """Everything was on screen: it fits, or the person scrolled to its end."""
        return self.seen_end or self.query_one("#scroll", VerticalScroll).max_scroll_y <= 0

    def _moved(self) -> None:
        scroll = self.query_one("#scroll", VerticalScroll)
        if scroll.max_scroll_y > 0 and scroll.scroll_y >= scroll.max_scroll_y:
            self.seen_end = True
        self._show_keys()

    def _show_keys(self) -> None:
        unread = not self.read_all()
        text = self.keys
        if unread:
            below = self.below
            more = f"{below} more line{'s' if below != 1 else ''} below"
            text += f"\nt trusts only once you have scrolled to the end: {more} (↓ PgDn End)"
        if text != self._shown_keys:
            self._shown_keys = text
            keys = self.query_one("#keys", Static)
            keys.set_class(unread, "-unread")
            keys.update(Text(text))

    def action_scroll(self, how: str) -> None:
        scroll = self.query_one("#scroll", VerticalScroll)
        {
            "down": scroll.scroll_down,
            "up": scroll.scroll_up,
            "page_down": scroll.scroll_page_down,
            "page_up": scroll.scroll_page_up,
            "end": scroll.scroll_end,
            "home": scroll.scroll_home,
        }[how](animate=False)

    def action_trust(self) -> None:
        if not self.guard.decides():
            return
        if not self.read_all():
            self._show_keys()
            self.app.bell()
            return
        self.dismiss(True)

    def action_refuse(self) -> None:
        self.dismiss(False)
