"""`tui-agent replay`: a saved session played back in the app's own transcript, as it streamed.

The events come from a ReplayPlayer (the recorded provider events decoded again, at the recorded
pace / speed) and go through the app's EventRouter, so text, "preparing tool" cards, decisions
and results are drawn by the same code as a live session. Each decision is shown as the card's
state and one line ("approved by you", "denied: <reason>", "auto-approved by rule: ...").

Nothing here builds an Agent, an HTTP client or a session writer: no tool runs, no request is
sent, the session file was only read.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Static

from ..agent.events import CallDecided
from ..replay import Clock, ReplayPlayer, ReplayScript, UserSent, decision_line
from .event_router import EventRouter
from .widgets.side_panel import SidePanel
from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from ..session import LoadedSession
    from .app import TuiAgentApp


class ReplayStatus(Static):
    """Where the replay is: "event k of N · speed x2 · paused"."""

    DEFAULT_CSS = """
    ReplayStatus {
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    """


class ReplayApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "tui-agent replay"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_pause", "Pause/resume", priority=True),
        Binding("full_stop", "step", "Step", key_display=".", priority=True),
        Binding("plus,equals_sign", "faster", "Faster", key_display="+", priority=True),
        Binding("minus", "slower", "Slower", key_display="-", priority=True),
        Binding("q", "leave", "Leave", priority=True),
        Binding("ctrl+q", "leave", "Leave", show=False, priority=True),
    ]

    def __init__(
        self,
        session: LoadedSession,
        *,
        speed: float = 1.0,
        clock: Clock | None = None,
        theme_name: str | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.script = ReplayScript.from_records(session.records, session.problems)
        self.player = ReplayPlayer(self.script, speed, clock)
        self.host: Any = None  # the EventRouter asks; a replay has no live session
        self.router: EventRouter | None = None
        self._theme_name = theme_name

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            yield Transcript(id="transcript")
            yield SidePanel(id="calls")
        yield ReplayStatus(id="replay-status")
        yield Footer()

    def on_mount(self) -> None:
        from .themes import apply_theme, register_themes

        for problem in register_themes(self):
            self.notify(problem, severity="warning")
        if not apply_theme(self, self._theme_name or "tui-dark"):
            self.notify(f"no theme named {self._theme_name!r}", severity="warning")
        header = self.session.header
        self.sub_title = self.session.title
        status = self.query_one(StatusBar)
        status.profile = header.profile
        status.model = header.model
        status.connection = "replay"
        status.hint = "a recording: no tool runs, no request is sent"
        # The router only reads widgets (and app.host, None here) from the app it is given.
        self.router = EventRouter(cast("TuiAgentApp", self))
        self._show_status()
        self._play()

    @work(exclusive=True, group="replay")
    async def _play(self) -> None:
        router = self.router
        assert router is not None
        transcript = self.query_one(Transcript)
        async for event in self.player.events():
            if isinstance(event, UserSent):
                router.flush()
                transcript.add_user(event.text)
            elif isinstance(event, CallDecided):
                router.handle(dataclasses.replace(event, reason=decision_line(event)))
            else:
                router.handle(event)
            self._show_status()
        router.flush()
        self.query_one(StatusBar).connection = "replay finished"
        self._show_status()

    def _show_status(self) -> None:
        self.query_one(ReplayStatus).update(
            f"{self.player.describe()}   space pause · . step · + faster · - slower · q leave"
        )

    # -- the keys ---------------------------------------------------------------------------

    def action_toggle_pause(self) -> None:
        self.player.toggle()
        self._show_status()

    def action_step(self) -> None:
        self.player.step()
        self._show_status()

    def action_faster(self) -> None:
        self.player.faster()
        self._show_status()

    def action_slower(self) -> None:
        self.player.slower()
        self._show_status()

    def action_leave(self) -> None:
        self.exit()
