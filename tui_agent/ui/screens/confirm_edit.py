"""Before edited arguments run, the person sees what changed and says yes (``e``, then Ctrl+S).

A dialog over the approval prompt: a unified diff of the model's arguments and the edited ones,
each as indented JSON with sorted keys, drawn as safe text (markup is never parsed, hidden
characters show as escapes). Typing never answers it (``ArmedYesNo``): ``y`` runs the edited
call and ``n`` goes back to the editor only once the dialog has had the person's attention for
the arming delay with no key pressed, every key before that starting the delay over; a key that
does not decide is swallowed (the arrow and page keys scroll the diff). Esc goes back to the
editor at any time; nothing runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from ..call_preview import diff_text
from ..edited_arguments import review_diff
from ..sanitize import exact_text
from ..widgets.approval_keys import below_words
from .key_guard import ArmedYesNo

HEADING = "Run the call with your edited arguments? What changed (- the model's, + yours):"
_SCROLL_KEYS = {"up", "down", "pageup", "pagedown", "home", "end"}


class ConfirmEdit(ArmedYesNo):
    """Dismisses with True for an armed ``y``; False for an armed ``n``, or Esc."""

    DEFAULT_CSS = """
    ConfirmEdit > Vertical { width: 90%; max-width: 110; max-height: 90%; }
    ConfirmEdit #diff { height: auto; max-height: 30; background: $boost; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back to the editor")]

    def __init__(self, tool_name: str, original: str, edited: str) -> None:
        super().__init__("y run it with these arguments · n or Esc back to the editor")
        self.tool_name = tool_name
        self.diff = review_diff(original, edited)

    def question(self) -> Iterable[Widget]:
        title = Text("edited call of ")
        title.append_text(exact_text(self.tool_name, "bold", one_line=True))
        yield Static(title, id="tool")
        yield Static(Text(HEADING), id="question")
        body = diff_text("\n".join(self.diff)) if self.diff else Text("(no change)")
        yield VerticalScroll(Static(body, id="diff-text"), id="diff")

    def free_key(self, key: str) -> bool:
        if key not in _SCROLL_KEYS:
            return False
        view = self.query_one("#diff", VerticalScroll)
        getattr(view, "scroll_" + key.replace("page", "page_"))(animate=False)
        return True

    def keys_note(self) -> str:
        views = self.query("#diff").results(VerticalScroll)
        view = next(views, None)
        below = round(view.max_scroll_y - view.scroll_y) if view is not None else 0
        return below_words(below) if below > 0 else ""

    def action_back(self) -> None:
        self.dismiss(False)
