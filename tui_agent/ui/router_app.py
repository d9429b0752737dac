"""What the event router needs from the app whose widgets it updates.

The live app (``TuiAgentApp``) and the replay app both are one; the router names this protocol
instead of either app, so it imports neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.widget import Widget

    from ..wiring.host import SessionHost

W = TypeVar("W", bound="Widget")


class RouterApp(Protocol):
    @property
    def host(self) -> SessionHost | None:
        """The live session (None before it opens, and in a replay)."""

    def query_one(self, selector: type[W]) -> W: ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer: ...

    def set_interval(self, interval: float, callback: Callable[[], object]) -> Timer: ...

    def withdraw_into_prompt(self) -> None:
        """After Esc mid-stream: the unanswered message goes back into the message box."""
