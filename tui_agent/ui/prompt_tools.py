"""What the message box offers as you type: the completion list (slash commands and their
arguments, @file mentions) and the attachment chips, wired to the box without owning it.

``attach_prompt_tools(app)`` mounts the list and the chips above the box, follows the box's
cursor (every edit moves it) and takes the keys the list needs while it is open: Up/Down move,
Tab takes the highlighted entry, Enter takes it too unless it is already what is typed (then
the message is sent), Esc closes the list (until the next edit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.document._document import Document

from .widgets.completion_list import CompletionList
from .widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from .shell import Shell


class PromptTools:
    def __init__(self, app: Shell) -> None:
        self.app = app
        self.list = CompletionList(id="completions")
        self._closed_for: str | None = None  # Esc closed the list for this text
        from .mentions import Mentions

        self.mentions = Mentions(app, self.refresh)

    @property
    def prompt(self) -> PromptInput:
        return self.app.query_one(PromptInput)

    async def attach(self) -> None:
        prompt = self.prompt
        await prompt.parent.mount(self.list, self.mentions.chips, before=prompt)  # type: ignore[union-attr]
        prompt.key_hook = self.key
        prompt.paste_hook = self.mentions.paste
        self.app.watch(prompt, "selection", lambda _: self.refresh(), init=False)

    def _document(self) -> Document:
        document = self.prompt.document
        assert isinstance(document, Document)
        return document

    def _cursor(self) -> int:
        return self._document().get_index_from_location(self.prompt.cursor_location)

    def refresh(self) -> None:
        prompt = self.prompt
        text = prompt.text
        if self._closed_for is not None and self._closed_for != text:
            self._closed_for = None
        if self._closed_for is not None:
            return
        from .actions import suggestions

        cursor = self._cursor()
        found: list[Any] = suggestions(self.app, text, cursor)
        if not found:
            found = self.mentions.suggestions(text, cursor)
        self.list.show(found)

    def key(self, key: str) -> bool:
        """True when the key was the list's (the box must not act on it)."""
        if not self.list.open:
            return False
        if key in ("up", "down"):
            self.list.move(-1 if key == "up" else 1)
            return True
        if key == "escape":
            self._closed_for = self.prompt.text
            self.list.hide()
            return True
        if key in ("tab", "enter"):
            chosen = self.list.chosen()
            if chosen is None:
                return False
            text = self.prompt.text
            if key == "enter" and text[chosen.start : chosen.end].strip() == chosen.value.strip():
                self.list.hide()
                return False  # already complete: Enter sends
            self._take(chosen)
            return True
        return False

    def _take(self, chosen: Any) -> None:
        prompt = self.prompt
        document = self._document()
        start = document.get_location_from_index(chosen.start)
        end = document.get_location_from_index(chosen.end)
        value = chosen.value
        if getattr(chosen, "attach", None) is not None:
            value = self.mentions.take(chosen)
        prompt.replace(value, start, end)
        self.refresh()


def attach_prompt_tools(app: Shell) -> PromptTools:
    tools = PromptTools(app)
    app.call_later(tools.attach)
    return tools
