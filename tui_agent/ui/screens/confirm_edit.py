"""Before edited arguments run, the person sees what changed and says yes (``e``, then Ctrl+S).

A dialog over the approval prompt: a unified diff of the model's arguments and the edited ones,
each as indented JSON with sorted keys, drawn as safe text (markup is never parsed, hidden
characters show as escapes). Typing never answers it (see ``arming``): ``y`` runs the edited
call and ``n`` goes back to the editor only once the dialog has had the person's attention for
the arming delay with no key pressed, every key before that starting the delay over; a key that
does not decide is swallowed. Esc goes back to the editor at any time; nothing runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..arming import ARMING_S, Arming, key_clock, now
from ..call_preview import diff_text
from ..edited_arguments import review_diff
from ..sanitize import safe_text

HEADING = "Run the call with your edited arguments? What changed (- the model's, + yours):"
_SCROLL_KEYS = {"up", "down", "pageup", "pagedown", "home", "end"}


class ConfirmEdit(ModalScreen[bool]):
    """Dismisses with True for an armed ``y``; False for an armed ``n``, or Esc."""

    DEFAULT_CSS = """
    ConfirmEdit { align: center middle; }
    ConfirmEdit > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    ConfirmEdit #diff { height: auto; max-height: 30; background: $boost; }
    ConfirmEdit #keys { color: $text-muted; }
    ConfirmEdit.-armed #keys { color: $text; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back to the editor")]
    arming_delay: ClassVar[float] = ARMING_S

    def __init__(self, tool_name: str, original: str, edited: str) -> None:
        super().__init__()
        self.tool_name = tool_name
        self.diff = review_diff(original, edited)
        self.arming = Arming(self.arming_delay)
        self._ok = False  # the key being handled may decide
        self._unlisten: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            title = Text("edited call of ")
            title.append_text(safe_text(self.tool_name, "bold", one_line=True))
            yield Static(title, id="tool")
            yield Static(Text(HEADING), id="question")
            body = diff_text("\n".join(self.diff)) if self.diff else Text("(no change)")
            with VerticalScroll(id="diff"):
                yield Static(body, id="diff-text")
            yield Static(id="keys")

    def on_mount(self) -> None:
        self._unlisten = key_clock(self.app).listen(self._key)
        self.arming.start(now())
        self._show_keys()
        self.set_interval(0.1, self._show_keys)

    def on_unmount(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    @property
    def armed(self) -> bool:
        return self.arming.armed(now())

    def _key(self, at: float) -> None:
        self._ok = self.app.screen is self and self.arming.key(at)

    def _show_keys(self) -> None:
        armed = self.armed
        self.set_class(armed, "-armed")
        keys = "y run it with these arguments · n or Esc back to the editor"
        self.query_one("#keys", Static).update(Text(keys if armed else keys + " (arming…)"))

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            return  # the binding goes back
        event.stop()
        event.prevent_default()
        if event.key in _SCROLL_KEYS:
            view = self.query_one("#diff", VerticalScroll)
            getattr(view, "scroll_" + event.key.replace("page", "page_"))(animate=False)
            return
        if not self._ok:
            self._show_keys()
            return  # typed too soon: decides nothing
        if event.key == "y":
            self.dismiss(True)
        elif event.key == "n":
            self.dismiss(False)

    def action_back(self) -> None:
        self.dismiss(False)
