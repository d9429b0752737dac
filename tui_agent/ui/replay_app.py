"""`tui-agent replay`: a saved session played back in the app's own transcript, as it streamed.

The events come from a ReplayPlayer (the recorded provider events decoded again, at the recorded
pace / speed) and go through the app's EventRouter, so text, "preparing tool" cards, decisions
and results are drawn by the same code as a live session. Each decision is shown as the card's
state and one line ("approved by you", "denied: <reason>", "auto-approved by rule: ...").
A decision the user made at a prompt also brings back that prompt, read-only (ReplayedPrompt:
the call, its arguments and the decision in place of the keys), in the bottom area for
``PROMPT_LINGER_S`` recorded seconds (divided by the speed; paused, until the next step). It
takes no key and resolves nothing.

Nothing here builds an Agent, an HTTP client or a session writer: no tool runs, no request is
sent, the session file was only read.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from ..agent.events import CallDecided, CallInvalid, TurnCompleted
from ..replay import (
    Clock,
    ReplayPlayer,
    ReplayScript,
    UserSent,
    decision_line,
    prompt_line,
    was_asked,
)
from ..stream.turn import ToolCall
from ..tools.registry import builtin_registry
from .event_router import EventRouter
from .safe_app import SafeApp
from .sanitize import visible_line
from .widgets.replayed_prompt import ReplayedPrompt
from .widgets.side_panel import SidePanel
from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from ..session import LoadedSession
    from ..wiring.host import SessionHost


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


PROMPT_LINGER_S = 1.0  # recorded seconds a replayed prompt stays on screen


class ReplayApp(SafeApp):
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
        self.host: SessionHost | None = None  # the EventRouter asks; a replay has no live session
        self.router: EventRouter | None = None
        self._calls: tuple[ToolCall, ...] = ()  # the last complete turn's calls
        self._invalid: set[str] = set()  # ids of its calls that were invalid (never asked)
        self._risks = {spec.name: str(spec.risk) for spec in builtin_registry()}
        self.prompts_shown: list[ReplayedPrompt] = []  # every prompt replayed, in order
        from .themes import choose_theme

        self._theme_warnings = choose_theme(self, theme_name)  # shown once mounted

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            yield Transcript(id="transcript")
            yield SidePanel(id="calls")
        yield Vertical(id="bottom")
        yield ReplayStatus(id="replay-status")
        yield Footer()

    def on_mount(self) -> None:
        for warning in self._theme_warnings:
            self.notify(warning, severity="warning")
        header = self.session.header
        self.sub_title = self.session.title
        status = self.query_one(StatusBar)
        status.profile = header.profile
        status.model = header.model
        status.connection = "replay"
        status.hint = "a recording: no tool runs, no request is sent"
        # The router only reads widgets (and app.host, None here) from the app it is given.
        self.router = EventRouter(self)
        self._show_status()
        self._play()

    @work(exclusive=True, group="replay")
    async def _play(self) -> None:
        router = self.router
        assert router is not None
        transcript = self.query_one(Transcript)
        async for event in self.player.events():
            await self._clear_prompt()
            if isinstance(event, UserSent):
                router.flush()
                transcript.add_user(event.text)
                for label in event.attached:
                    transcript.add_notice(f"📎 attached @{visible_line(label)}", "info")
            elif isinstance(event, CallDecided):
                router.handle(dataclasses.replace(event, reason=decision_line(event)))
                if was_asked(event):
                    await self._show_prompt(event)
            else:
                if isinstance(event, TurnCompleted):
                    self._calls, self._invalid = event.turn.tool_calls, set()
                elif isinstance(event, CallInvalid):
                    self._invalid.add(event.call_id)
                router.handle(event)
            self._show_status()
        await self._clear_prompt()
        router.flush()
        self.query_one(StatusBar).connection = "replay finished"
        self._show_status()

    async def _show_prompt(self, event: CallDecided) -> None:
        """The prompt the user answered, as it looked answered; the player lingers on it."""
        asked = [call for call in self._calls if call.id not in self._invalid]
        index = next((i for i, call in enumerate(asked) if call.id == event.call_id), None)
        call = asked[index] if index is not None else None
        name = call.name if call is not None else event.name
        prompt = ReplayedPrompt(
            call_id=event.call_id,
            tool_name=name,
            risk=self._risks.get(name, "unknown risk"),
            arguments=call.arguments if call is not None else "",
            position=index + 1 if index is not None else 1,
            total=len(asked) if index is not None else 1,
            decision=prompt_line(event),
        )
        self.prompts_shown.append(prompt)
        await self.query_one("#bottom", Vertical).mount(prompt)
        self.player.linger(PROMPT_LINGER_S)

    async def _clear_prompt(self) -> None:
        await self.query(ReplayedPrompt).remove()

    def withdraw_into_prompt(self) -> None:
        """For the router (RouterApp): a replay has no message box to put a message back in."""

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
