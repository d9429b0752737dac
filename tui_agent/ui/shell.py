"""The face of the app that its feature modules see: ``Shell``.

A feature module (approval mode, rewind, sessions, the sandbox, the message queue, the actions'
runners, ...) takes the app as a ``Shell``, never as ``TuiAgentApp``: this protocol is what they
use of it, counted from their code, so none of them imports ``app.py`` and the app, on top,
imports them. ``app.py`` checks itself against it (mypy fails when the app stops matching).

Here too is what a feature gives the app: a row of the actions' table (``Action``, with its
``Entry`` and ``Key``), since the face holds the actions added at run time and a row's runner
takes the face (``actions.py`` builds the keys, the palette and the slash list of the rows).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload

from .router_app import RouterApp

if TYPE_CHECKING:
    from textual.css.query import DOMQuery
    from textual.dom import DOMNode
    from textual.message import Message
    from textual.notifications import SeverityLevel
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.theme import Theme
    from textual.widget import AwaitMount, Widget
    from textual.worker import Worker, WorkType

    from ..agent.events import AgentEvent
    from ..wiring.host import SessionHost
    from ..wiring.host_options import HostOptions
    from .arming import Clock
    from .event_router import EventRouter
    from .message_queue import MessageQueue

W = TypeVar("W", bound="Widget")
R = TypeVar("R")

# (app, the text after the command: "" from a key or the palette) -> anything (a coroutine is
# run in a worker).
Runner = Callable[["Shell", str], object]
# (app, what is typed of the arguments) -> (value, description) pairs
Completer = Callable[["Shell", str], Iterable[tuple[str, str]]]


@dataclass(frozen=True)
class Entry:
    """One palette entry: runs its action with ``arguments``."""

    title: str
    help: str
    arguments: str = ""


@dataclass(frozen=True)
class Key:
    key: str
    label: str  # the footer's (and the keys panel's) word
    show: bool = True  # in the footer
    priority: bool = False  # before the focused widget (the message box binds ctrl+y, ...)


@dataclass(frozen=True)
class Action:
    """One row of the actions' table (``actions.py``): one thing a person can do."""

    name: str  # ``/name``, and the binding's ``act('name')``
    help: str  # the line of /help and of the slash list
    run: Runner
    key: Key | None = None
    palette: tuple[Entry, ...] = ()
    entries: Callable[[Shell], Iterable[Entry]] | None = None  # palette entries of the session
    usage: str = ""  # how the arguments look, e.g. "[NAME]"
    complete: Completer | None = None
    slash: bool = True  # offered as ``/name``
    while_busy: bool = True  # runs while the agent works
    needs_session: bool = False  # waits for the session to open
    offered: Callable[[Shell], bool] | None = None  # neither palette nor slash list when False
    unavailable: str = ""  # why, when ``offered`` says no and the person types /name anyway


class Shell(RouterApp, Protocol):
    """What the app's feature modules use of the app (``TuiAgentApp`` is the one)."""

    # -- the session and the app's own state -------------------------------------------------

    # Read only: the app alone changes its session (show_session).
    @property
    def host(self) -> SessionHost | None:
        """The open session; None until it opens (or when it could not)."""

    @property
    def router(self) -> EventRouter | None:
        """The agent's events -> the widgets; made with each session shown."""

    @property
    def options(self) -> HostOptions:
        """How the session was opened (a switch or /new starts from them)."""

    busy: bool  # the agent works (a turn, a compaction, a re-run): some actions wait
    clock: Clock  # the app's time: UI code never reads the system clock
    added_actions: dict[str, Action]  # actions.add_action
    queue: MessageQueue  # messages typed while the agent works (message_queue)
    interrupted_at: float | None  # the last Ctrl+C that did not copy (interrupt)
    mode_before_plan: str | None  # the approval mode /plan replaced (plan_view)

    # -- what the app does -------------------------------------------------------------------

    def drive(self, events: AsyncIterator[AgentEvent]) -> Worker[None]:
        """Run the agent's ``events`` through the router, busy meanwhile (one at a time)."""
        ...

    def set_approval_mode(self, mode: str, *, confirmed: bool = False) -> None: ...

    def switch_profile(self, name: str | None, model: str | None = None) -> Worker[None]: ...

    async def show_session(
        self, host: SessionHost, notice: str = "", *, options: HostOptions | None = None
    ) -> None:
        """Show ``host`` (opened already) in place of the current session, if any."""
        ...

    async def switch_session(self, session_id: str) -> None:
        """Resume ``session_id`` in place of this one (raises SessionError or ConfigError)."""
        ...

    def action_stop(self) -> None: ...

    async def action_quit(self) -> None: ...

    # -- Textual's, as the feature modules use them -------------------------------------------

    @property
    def screen(self) -> Screen[object]: ...

    @property
    def is_headless(self) -> bool: ...

    @property
    def app_focus(self) -> bool: ...

    @property
    def available_themes(self) -> dict[str, Theme]: ...

    theme: str

    @overload
    def query_one(self, selector: str) -> Widget: ...

    @overload
    def query_one(self, selector: type[W]) -> W: ...

    @overload
    def query_one(self, selector: str, expect_type: type[W]) -> W: ...

    @overload
    def query(self, selector: str | None = None) -> DOMQuery[Widget]: ...

    @overload
    def query(self, selector: type[W]) -> DOMQuery[W]: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def push_screen(
        self, screen: Screen[R], callback: ScreenResultCallbackType[R] | None = None
    ) -> AwaitMount: ...

    def run_worker(
        self,
        work: WorkType[R],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[R]: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def post_message(self, message: Message) -> bool: ...

    def watch(
        self,
        obj: DOMNode,
        attribute_name: str,
        callback: Callable[..., Any],
        init: bool = True,
    ) -> None: ...

    def suspend(self) -> AbstractContextManager[None]: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def action_change_theme(self) -> None: ...

    def action_show_help_panel(self) -> None: ...

    def action_hide_help_panel(self) -> None: ...

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None: ...

    def register_theme(self, theme: Theme) -> None: ...

    def unregister_theme(self, theme_name: str) -> None: ...


__all__ = ["Action", "Completer", "Entry", "Key", "Runner", "Shell"]
