"""When a widget that decides with one key (the approval prompt) may take focus, and its arming.

The widget has the person's attention while focus is on it or inside it, on the active screen.
While the person types (a key less than ``PAUSE_S`` ago, anywhere in the app) it does not take
focus: keys keep going where they went (``home``, the message box). It takes focus after a pause,
or at once when nobody was typing; Tab (or a click) gives it focus at any time.

Its keys decide only once armed (``Arming``): ``delay`` seconds of attention with no key, the
delay starting over on every key pressed during it, and when attention comes back (a modal
screen closed, focus returned). A typing key that reaches it while arming, after it took focus
by itself, goes back to ``home`` with focus: the person was typing, nothing is lost, and the
widget waits for the next pause. After Tab or a click the key is taken, deciding nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widget import Widget

from ..arming import Arming, KeyClock, Stoppable, clock, key_clock

POLL_S = 0.05
# Keys that edit a message (besides printable characters): given back to the message box.
_TYPING_KEYS = frozenset(
    {"backspace", "delete", "enter", "ctrl+j", "alt+enter", "shift+enter", "left", "right"}
)


class Attention:
    """The attention, focus and arming of ``owner``; see the module docstring."""

    def __init__(self, owner: Widget, delay: float, changed: Callable[[], None]) -> None:
        self.owner = owner
        self.arming = Arming(delay)
        self.waiting = True  # for a pause in typing, to take focus
        self.deliberate = False  # focus came by Tab or a click (not taken by the owner)
        self.home: Widget | None = None
        self._changed = changed
        self._clock: KeyClock | None = None
        self._unlisten: Callable[[], None] | None = None
        self._taking = False
        self._held = False  # focus stayed on the owner while another screen was on top
        self._shown: tuple[bool, bool, bool] | None = None
        self._done = False
        self._timer: Stoppable | None = None
        self._timer_due: float | None = None

    # -- life ----------------------------------------------------------------------------

    def mount(self) -> None:
        """Listen to keys, note where focus is (``home``), poll; take focus if nobody types."""
        owner = self.owner
        self._clock = key_clock(owner.app)
        self._unlisten = self._clock.listen(self._key_pressed)
        focused = owner.screen.focused
        if focused is not None and not self.within(focused):
            self.home = focused
        self._clock.clock.every(owner, POLL_S, self.tick)
        self.tick()

    def unmount(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    def done(self) -> None:
        """The owner decided: no more taking focus."""
        self._done = True
        self.waiting = False
        self.arming.stop()
        self.unmount()

    # -- state -----------------------------------------------------------------------------

    def within(self, widget: Widget | None) -> bool:
        return widget is not None and (widget is self.owner or self.owner in widget.ancestors)

    def attended(self) -> bool:
        return self.within(self.owner.app.focused)

    def armed(self) -> bool:
        armed = self.attended() and self.arming.armed(self._now())
        if self._shown is not None and armed != self._shown[1]:
            self._report()  # shown the moment anyone can see it
        return armed

    @property
    def typing(self) -> bool:
        return self._clock is not None and self._clock.typing()

    def _now(self) -> float:
        return clock(self.owner.app).now()

    def tick(self) -> None:
        """Poll: notice attention coming and going; take focus after a pause in typing."""
        if self._done:
            return
        at = self._now()
        self._sync(at)
        if self.waiting and not self.attended() and self._may_take(at):
            self._taking = True
            self.owner.screen.set_focus(self.owner)
            self._sync(at)
        self._report()

    def key(self, stamped: float) -> bool:
        """A key that reached the owner, its event stamped ``stamped`` by Textual (``event.time``,
        read in the app's clock): True when it may decide (else the delay restarts)."""
        at = clock(self.owner.app).of_event(stamped)
        self._sync(self._now())
        decides = self.attended() and self.arming.key(at)
        self._report()
        return decides

    def restart(self) -> None:
        """Focus moved inside the owner (an input opened or closed): arm again from now."""
        if self.arming.running:
            self.arming.start(self._now())
        self._report()

    def give_back(self, event: events.Key) -> bool:
        """Send a typing key (and focus) back home if the owner took focus by itself."""
        home = self.home
        if self.deliberate or home is None or not home.is_attached:
            return False
        if not (event.is_printable or event.key in _TYPING_KEYS):
            return False
        if self.attended():
            self.owner.screen.set_focus(home)
            self.waiting = True
            self._sync(self._now())
        key = events.Key(event.key, event.character)
        # As the app delivers a key to the focused widget (marked forwarded, so it is not
        # routed a second time when it bubbles up to the app); in order with the keys after it.
        home._forward_event(key)
        self._report()
        return True

    # -- inside ------------------------------------------------------------------------------

    def _key_pressed(self, at: float) -> None:
        """Every key in the app, before any widget gets it."""
        self._sync(self._now())
        if self.arming.running:
            self.arming.key(at)
        self._report()

    def _may_take(self, at: float) -> bool:
        owner = self.owner
        if owner.app.screen is not owner.screen or self._clock is None:
            return False
        focused = owner.screen.focused
        return not self._clock.typing(at) and (focused is None or focused is self.home)

    def _sync(self, at: float) -> None:
        attended = self.attended()
        if attended and not self.arming.running:
            if self._taking:
                self.deliberate = False
            elif not self._held:
                self.deliberate = True
            self._taking = self._held = False
            self.waiting = False
            self.arming.start(at)
        elif not attended and self.arming.running:
            self.arming.stop()
            self._held = self.within(self.owner.screen.focused)
        self.arming.armed(at)

    def _report(self) -> None:
        at = self._now()
        shown = (self.attended(), self.arming.armed(at), self.waiting)
        if shown != self._shown:
            self._shown = shown
            self._changed()
        due = self.arming.due
        if due is not None and not shown[1] and due != self._timer_due:
            # Show "armed" when it happens, not at the next poll.
            if self._timer is not None:
                self._timer.stop()
            self._timer_due = due
            self._timer = clock(self.owner.app).after(self.owner, due - at, self.tick)
