"""Queue while busy: Enter while the agent works queues the message instead of refusing it.

Queued messages are shown above the message box (``QueuedMessages``), editable and removable
until sent. When the loop next waits for the person (the answer is complete, or the
auto-approved steps limit stopped it), the first queued message is sent as if typed then, and
so on, one per loop. A loop that was stopped (Esc, Ctrl+C) or cut short holds the queue: it
stays, and goes on after the person's next message (or ``s`` on one sends it now). A slash
command typed while busy is not queued: it runs at once (``/plan``, ``/mode``...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload

from .widgets.prompt_input import PromptInput
from .widgets.queued_messages import QueuedMessages

if TYPE_CHECKING:
    from textual.message import Message
    from textual.widget import Widget

W = TypeVar("W", bound="Widget")

HOLDING_OUTCOMES = frozenset({"cancelled", "truncated"})


class QueueApp(Protocol):
    """What the queue needs of the app that holds it (the app's face, ``Shell``, is one)."""

    @property
    def busy(self) -> bool: ...

    def notify(self, message: str) -> None: ...

    @overload
    def query_one(self, selector: str) -> Widget: ...

    @overload
    def query_one(self, selector: type[W]) -> W: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def post_message(self, message: Message) -> bool: ...


class MessageQueue:
    """The app's queue (one per app, made with it: ``app.queue``)."""

    def __init__(self, app: QueueApp) -> None:
        self.app = app
        self.items: list[str] = []
        self.held = False
        self.editing_at: int | None = None  # where a message taken back to edit came from
        self.view: QueuedMessages | None = None
        self.sending: str | None = None  # sent from the queue, not typed: see ``queued``

    # -- what the person does ---------------------------------------------------------------

    def add(self, text: str) -> None:
        at = len(self.items) if self.editing_at is None else min(self.editing_at, len(self.items))
        self.editing_at = None
        self.items.insert(at, text)
        self._show()
        self.app.notify("queued: sent when the agent is done (alt+↑ to edit or remove)")

    def choose(self, action: str, index: int) -> None:
        if not 0 <= index < len(self.items):
            return
        prompt = self.app.query_one(PromptInput)
        if action == "remove":
            del self.items[index]
        elif action == "edit":
            text = self.items.pop(index)
            draft = prompt.text
            if draft.strip():  # the box's draft takes the message's place in the queue
                self.items.insert(index, draft)
            self.editing_at = index
            prompt.restore(text)
        elif action == "send":
            if self.app.busy:
                self.app.notify("the agent is busy: it goes out when the agent is done")
                return
            self.held = False
            self._send(self.items.pop(index))
        self._show()
        if not self.items or action == "edit":
            prompt.focus()

    def person_sent(self) -> None:
        """The person sent a message themselves: a held queue goes on after it."""
        self.held = False
        self.editing_at = None
        self._show()

    def queued(self, text: str) -> bool:
        """Enter with ``text``: True when it was queued (the agent is busy); else it goes out
        now."""
        from_queue, self.sending = self.sending == text, None
        busy = self.app.busy
        if not busy or (text.startswith("/") and not text.startswith("//")):
            if not busy and not from_queue:
                self.person_sent()
            return False
        self.add(text)
        return True

    def focus(self) -> None:
        """Alt+Up: to the queued messages (the last one chosen), if there are any."""
        if self.view is None or not self.items:
            self.app.notify("no queued messages")
            return
        self.view.selected = len(self.items) - 1
        self.view.focus()

    # -- the loop ----------------------------------------------------------------------------

    def loop_waits(self, outcome: str | None) -> None:
        """The loop waits for the person: send the next queued message, or hold the queue."""
        if outcome in HOLDING_OUTCOMES:
            self.held = bool(self.items)
        elif self.items and not self.held:
            self._send(self.items.pop(0))
        self._show()

    def _send(self, text: str) -> None:
        # Through the app's own Enter path (slash commands, mentions), once this worker is done.
        self.sending = text
        self.app.call_later(self.app.post_message, PromptInput.Submitted(text))

    def _show(self) -> None:
        if self.view is None:
            self.view = QueuedMessages(self.choose, id="queued")
            self.app.query_one("#bottom").mount(self.view, before=self.app.query_one(PromptInput))
        if not self.items and self.view.has_focus:
            self.app.query_one(PromptInput).focus()
        self.view.set_items(self.items, held=self.held)
