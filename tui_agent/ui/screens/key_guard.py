"""Typing never decides on a screen that asks something with one key: the one place that holds
the rule for every such dialog.

``KeyGuard`` listens to every key of the app (``KeyClock``) before any widget gets it and keeps
an ``Arming``: armed once the screen (or a question on it) has had attention for the arming delay
with no key, the delay starting over on every key. A key decides only if the arming was armed
when it was pressed (``decides()``), and only while its screen is the one shown; a mouse press
decides if it is armed then. By default it keeps a ``PausedArming``: opened while the person
types (the key that opened it came within a pause of the key before), it first waits for a
pause in typing.

Two kinds of screen use it, so that each dialog only says what its keys do and what it shows:

- ``GuardedModal`` (the session browser, the fork picker, the trust questions): a
  ``PausedArming`` that arms each time the screen is shown and stops while another covers it;
  the screen asks ``self.guard.decides()`` before it acts on a key.
- ``ArmedYesNo`` (entering AUTO-ALL, running edited arguments): an ``Arming`` with a fixed
  ``arming_delay`` from when the dialog mounts; y says yes and n says no once armed, every other
  key is swallowed, Esc is left to the dialog's binding. Its keys line says "(arming…)" until
  armed, and the screen has the CSS class ``-armed`` once it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Static

from ..arming import ARMING_S, Arming, PausedArming, clock, key_clock

ResultT = TypeVar("ResultT")


class KeyGuard:
    def __init__(
        self,
        screen: Screen[Any],
        changed: Callable[[], None] | None = None,
        arming: Arming | None = None,
    ) -> None:
        self.screen = screen
        self.arming = PausedArming() if arming is None else arming
        self._ok = False  # the last key (or mouse press) may decide
        self._changed = changed
        self._unlisten: Callable[[], None] | None = None

    def _now(self) -> float:
        return clock(self.screen.app).now()

    def mount(self) -> None:
        self._unlisten = key_clock(self.screen.app).listen(self._key)

    def unmount(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    def arm(self) -> None:
        """Attention starts (the screen shows, a question opens or ends): arm from now."""
        if isinstance(self.arming, PausedArming):
            self.arming.start(self._now(), typing=key_clock(self.screen.app).typing_before_last())
        else:
            self.arming.start(self._now())
        self._ok = False
        self._report()

    def stop(self) -> None:
        self.arming.stop()
        self._ok = False

    def clicked(self) -> None:
        """A mouse press: it may decide if the screen is armed now."""
        self._ok = self.arming.armed(self._now())

    def decides(self) -> bool:
        """May the key (or click) being handled decide?"""
        return self._ok

    @property
    def waiting(self) -> bool:
        """Waiting for a pause in typing."""
        return isinstance(self.arming, PausedArming) and self.arming.waiting

    def armed(self) -> bool:
        return self.arming.armed(self._now())

    def _key(self, at: float) -> None:
        self._ok = self.screen.app.screen is self.screen and self.arming.key(at)
        self._report()

    def _report(self) -> None:
        if self._changed is not None:
            self._changed()


class GuardedModal(ModalScreen[ResultT]):
    """A modal screen with a ``KeyGuard`` (``self.guard``) that listens while it is mounted,
    arms each time the screen is shown and stops while another screen covers it.

    ``changed`` is called whenever the guard's state may have changed (a key, arming).
    """

    def __init__(self, changed: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.guard = KeyGuard(self, changed)

    @on(events.Mount)
    def _guard_listens(self) -> None:
        self.guard.mount()

    @on(events.Unmount)
    def _guard_stops_listening(self) -> None:
        self.guard.unmount()

    @on(events.ScreenResume)
    def _guard_arms(self) -> None:
        self.guard.arm()

    @on(events.ScreenSuspend)
    def _guard_stops(self) -> None:
        self.guard.stop()


class ArmedYesNo(ModalScreen[bool]):
    """A y/n dialog that dismisses with True for an armed y, False for an armed n.

    Subclasses give ``keys`` (what y and n do) and ``question()`` (the widgets above the keys
    line, in a ``Vertical`` with it), bind Esc themselves, and may use keys that need no arming
    in ``free_key`` (the edit dialog scrolls its diff).
    """

    DEFAULT_CSS = """
    ArmedYesNo { align: center middle; }
    ArmedYesNo > Vertical {
        height: auto; border: thick $warning; background: $surface; padding: 0 1;
    }
    ArmedYesNo #keys { color: $text-muted; }
    ArmedYesNo.-armed #keys { color: $text; text-style: bold; }
    """
    arming_delay: ClassVar[float] = ARMING_S

    def __init__(self, keys: str) -> None:
        super().__init__()
        self.keys = keys
        self.guard = KeyGuard(self, arming=Arming(self.arming_delay))

    def question(self) -> Iterable[Widget]:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical():
            yield from self.question()
            yield Static(id="keys")

    @on(events.Mount)
    def _arm(self) -> None:
        self.guard.mount()
        self.guard.arm()
        self._show_keys()
        clock(self.app).every(self, 0.1, self._show_keys)

    @on(events.Unmount)
    def _stop_listening(self) -> None:
        self.guard.unmount()

    @property
    def armed(self) -> bool:
        return self.guard.armed()

    def _show_keys(self) -> None:
        armed = self.armed
        self.set_class(armed, "-armed")
        keys = self.keys if armed else self.keys + " (arming…)"
        note = self.keys_note()
        self.query_one("#keys", Static).update(Text(f"{note} · {keys}" if note else keys))

    def free_key(self, key: str) -> bool:
        """Handle ``key`` armed or not, saying whether it was handled (none here)."""
        return False

    def keys_note(self) -> str:
        """What the keys line says before the keys (the edit dialog: how many lines are below)."""
        return ""

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            return  # the dialog's binding says no
        event.stop()
        event.prevent_default()
        if self.free_key(event.key):
            return
        if not self.guard.decides():
            self._show_keys()
            return  # typed too soon: decides nothing
        if event.key == "y":
            self.dismiss(True)
        elif event.key == "n":
            self.dismiss(False)
