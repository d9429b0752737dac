"""What happens once the agent's loop waits for the person again (the app's ``drive`` ends).

The person is told when the terminal is not focused (``notify``), and the next queued message
is sent, unless the loop was stopped (Esc, Ctrl+C) or cut short: then the queue waits for the
person (``message_queue``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..agent.events import LoopEnded
from ..context.events import CompactionFailed
from .notify import notify_person

if TYPE_CHECKING:
    from .shell import Shell

# What the notification says for each way the loop ended (a cancelled loop: the person is there).
_SAID = {
    "complete": "done, waiting for you",
    "max_steps": "stopped after the auto-approved steps limit",
    "max_cost": "stopped before passing max_cost",
    "truncated": "the turn was cut short",
}


class TurnEnd:
    """Watches one run of the loop's events; ``ended`` once it is over."""

    def __init__(self, app: Shell) -> None:
        self.app = app
        self.outcome: str | None = None  # the LoopEnded outcome, when the loop said it

    def saw(self, event: Any) -> None:
        if isinstance(event, LoopEnded):
            self.outcome = event.outcome
        elif isinstance(event, CompactionFailed):  # failed or stopped: the queue waits
            self.outcome = "cancelled"

    def ended(self) -> None:
        said = _SAID.get(self.outcome or "")
        if said is not None:
            notify_person(self.app, said)
        self.app.queue.loop_waits(self.outcome)
