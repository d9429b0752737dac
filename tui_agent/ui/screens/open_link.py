"""Asks before a link in an answer is opened: shows the exact target, opens it only on ``y``.

Only http(s) and mailto targets can be opened; anything else (javascript:, file:, a relative
path) is shown with the reason and nothing can open it. The target is shown through
``visible``: a hidden or look-alike character in it is escaped, never rendered.
"""

from __future__ import annotations

from typing import ClassVar
from urllib.parse import urlsplit

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..sanitize import visible

OPENABLE_SCHEMES = frozenset({"http", "https", "mailto"})


def can_open(href: str) -> bool:
    """Whether ``href`` may be offered for opening: an http(s) URL with a host, or mailto."""
    if href != href.strip() or visible(href) != href:
        return False  # whitespace or hidden characters: what is shown is not what would open
    try:
        parts = urlsplit(href)
    except ValueError:
        return False
    scheme = parts.scheme.lower()
    if scheme == "mailto":
        return bool(parts.path)
    return scheme in OPENABLE_SCHEMES and bool(parts.netloc)


class OpenLink(ModalScreen[bool]):
    """Dismissed with True only when the user pressed ``y`` on an openable target."""

    DEFAULT_CSS = """
    OpenLink { align: center middle; }
    OpenLink > Vertical {
        width: 80; height: auto; border: round $primary; background: $surface; padding: 0 1;
    }
    OpenLink #target { color: $text-accent; }
    OpenLink #refused { color: $text-error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "open", "Open"),
        Binding("n,escape", "cancel", "Cancel"),
    ]

    def __init__(self, href: str) -> None:
        super().__init__()
        self.href = href
        self.openable = can_open(href)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Link target:")
            yield Static(visible(self.href), id="target", markup=False)
            if self.openable:
                yield Static("Open this link? y/n", id="question")
            else:
                yield Static("not opened: only http(s) links (Esc to close)", id="refused")

    def action_open(self) -> None:
        self.dismiss(self.openable)

    def action_cancel(self) -> None:
        self.dismiss(False)
