"""The message box: Enter sends; Ctrl+J, Alt+Enter (and Shift+Enter where the terminal reports
it) add a line; Up on the first line and Down on the last walk through earlier messages.

Alt+Enter reaches the app as ``alt+enter`` also where the terminal sends it as ESC then Enter
(tmux, ssh): see ``terminal_keys``."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from .. import terminal_keys

PLACEHOLDER = "Message the model — Enter sends, Ctrl+J new line, Ctrl+P commands"
_NEWLINE_KEYS = frozenset({"ctrl+j", "alt+enter", "shift+enter", "ctrl+enter"})


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 50%;
    }
    PromptInput:focus { border: round $primary; }
    """

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=PLACEHOLDER,
        )
        self.sent: list[str] = []
        self._history_at: int | None = None
        self._draft = ""
        # Set by ui/prompt_tools.py: True when the open completion list took the key.
        self.key_hook: Callable[[str], bool] | None = None
        # Set by ui/prompt_tools.py: True when a paste was taken as an attachment (a dropped
        # image file arrives as its path), so it is not inserted as text.
        self.paste_hook: Callable[[str], bool] | None = None

    def on_mount(self) -> None:
        terminal_keys.install()

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual calls TextArea's own handler after this one unless the default is prevented.
        if self.paste_hook is not None and self.paste_hook(event.text):
            event.prevent_default()
            event.stop()

    async def _on_key(self, event: events.Key) -> None:
        if self.key_hook is not None and self.key_hook(event.key):
            event.prevent_default()
            event.stop()
            return
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self.submit()
            return
        if event.key in _NEWLINE_KEYS:
            event.prevent_default()
            event.stop()
            self.insert("\n")
            return
        if event.key == "up" and self.cursor_location[0] == 0 and self._walk(-1):
            event.prevent_default()
            event.stop()
            return
        last_row = self.document.line_count - 1
        if event.key == "down" and self.cursor_location[0] == last_row and self._walk(1):
            event.prevent_default()
            event.stop()
            return
        await super()._on_key(event)

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._history_at = None
        self.clear()
        self.post_message(self.Submitted(text))

    def restore(self, text: str) -> None:
        """Put a withdrawn message back for editing."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _walk(self, step: int) -> bool:
        if not self.sent:
            return False
        if self._history_at is None:
            if step > 0:
                return False
            self._draft = self.text
            at = len(self.sent) - 1
        else:
            at = self._history_at + step
        if at >= len(self.sent):
            self._history_at = None
            self.load_text(self._draft)
            return True
        if at < 0:
            return True
        self._history_at = at
        self.load_text(self.sent[at])
        return True
