"""`tui-agent --agent NAME`: another coding agent's ACP session in the app's own panes.

The agent's events (acp_client/: its updates as the loop's own events) go through the same
EventRouter as tui-agent's own loop, into the same transcript, cards and calls panel; its
permission requests are asked on the same ApprovalPrompt, which decides only once armed (typing
never decides). Esc sends ``session/cancel``; leaving the app ends the agent's process tree.
What the agent does not do through tui-agent (its own loop, its own commands) has no key here:
the app's other actions (models, rewind, sessions, MCP...) belong to tui-agent's own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer

from ..wiring.host_options import HostOptions
from .arming import Clock, KeyClock
from .safe_app import SafeApp
from .themes import apply_theme, register_themes
from .widgets.completion_list import CompletionList
from .widgets.prompt_input import PromptInput
from .widgets.side_panel import SidePanel
from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from ..agent.events import AgentEvent
    from ..approval.approver import ApprovalRequest
    from ..approval.decision import Decision
    from ..wiring.acp_host import AcpHost
    from ..wiring.host import SessionHost
    from .event_router import EventRouter

QUIT_WAIT_S = 5.0  # how long leaving waits for the cancelled prompt's last records


class AcpApp(SafeApp):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "tui-agent"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-medium"), (100, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "Stop"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        options: HostOptions,
        agent: str,
        *,
        theme_name: str | None = None,
        debug: bool = False,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.options = options
        self.agent = agent
        self.acp: AcpHost | None = None
        self.router: EventRouter | None = None
        self.busy = False
        self.clock = Clock() if clock is None else clock
        self.key_clock = KeyClock(clock=self.clock)
        self.startup_error: str | None = None
        self._theme_name = theme_name
        self._debug = debug

    @property
    def host(self) -> SessionHost | None:
        """For the router (RouterApp): there is no session of tui-agent's own loop here."""
        return None

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            yield Transcript(id="transcript")
            yield SidePanel(id="calls")
        with Vertical(id="bottom"):
            yield CompletionList(id="completions")
            yield PromptInput(id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        prompt = self.query_one(PromptInput)
        prompt.focus()
        prompt.key_hook = self._completion_key
        self.watch(prompt, "selection", lambda _: self._complete(), init=False)
        for problem in register_themes(self):
            self.notify(problem, severity="warning")
        if not apply_theme(self, self._theme_name) and self._theme_name is not None:
            self.notify(f"no theme named {self._theme_name!r}", severity="warning")
        status = self.query_one(StatusBar)
        status.profile = f"agent {self.agent}"
        status.connection = "starting the agent"

    def on_ready(self) -> None:
        self._boot()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.key_clock.key_event(event.time)  # before any widget gets the key
        await super().on_event(event)

    @work(exclusive=True, group="boot")
    async def _boot(self) -> None:
        from ..acp_client.session import AcpError
        from ..config import ConfigError
        from ..logs import setup_logging
        from ..session import SessionError
        from ..tools.process_limits import install_exit_signals
        from ..wiring.acp_host import open_acp_host
        from .event_router import EventRouter

        setup_logging(self._debug)
        install_exit_signals()  # SIGTERM/SIGHUP: the agent's process group goes too
        status = self.query_one(StatusBar)
        try:
            host = await open_acp_host(self.options, self.agent, AcpApprover(self))
        except (ConfigError, SessionError, AcpError) as exc:
            status.connection = "error: the agent did not start"
            self.startup_error = str(exc)
            self.exit(return_code=1)
            return
        self.acp = host
        self.router = EventRouter(self)
        status.model = host.session.agent_title
        status.mode = str(host.policy.mode)
        status.connection = "ready"
        transcript = self.query_one(Transcript)
        self.router.show_history(host.history)
        for notice in host.notices:
            transcript.add_notice(notice.text, notice.level)

    # -- sending ----------------------------------------------------------------------------

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        prompt = self.query_one(PromptInput)
        if self.acp is None:
            self.notify("the agent is still starting", severity="warning")
            prompt.restore(message.text)
            return
        if self.busy:
            self.notify("the agent is busy: Esc stops it first", severity="warning")
            prompt.restore(message.text)
            return
        self.query_one(Transcript).add_user(message.text)
        self.drive(self.acp.session.send(message.text))

    @work(exclusive=True, group="agent")
    async def drive(self, events: AsyncIterator[AgentEvent]) -> None:
        self.busy = True
        status = self.query_one(StatusBar)
        try:
            async for event in events:
                if self.router is not None:
                    self.router.handle(event)
        finally:
            if self.router is not None:
                self.router.flush()
            self.busy = False
            status.connection = "ready"
        self._show_commands()

    # -- the agent's slash commands in the completion list ---------------------------------

    def _complete(self) -> None:
        """``/``: the commands the agent offers that start with what is typed."""
        from .slash_commands import Suggestion

        listed = self.query_one(CompletionList)
        text = self.query_one(PromptInput).text
        offered = self.acp.session.commands if self.acp is not None else []
        if not text.startswith("/") or any(ch.isspace() for ch in text):
            listed.hide()
            return
        found = [
            Suggestion(f"/{name} ", f"/{name}", str(c.get("description", "")), 0, len(text))
            for c in offered
            if (name := str(c.get("name", ""))).startswith(text[1:])
        ]
        listed.show(found)

    def _completion_key(self, key: str) -> bool:
        """Up/Down move in the list, Tab (or Enter) takes the entry, Esc closes it."""
        listed = self.query_one(CompletionList)
        if not listed.open:
            return False
        if key in ("up", "down"):
            listed.move(-1 if key == "up" else 1)
            return True
        if key == "escape":
            listed.hide()
            return True
        if key in ("tab", "enter"):
            chosen = listed.chosen()
            prompt = self.query_one(PromptInput)
            if chosen is None or (key == "enter" and prompt.text.strip() == chosen.value.strip()):
                listed.hide()
                return False
            prompt.clear()
            prompt.insert(chosen.value)
            listed.hide()
            return True
        return False

    def _show_commands(self) -> None:
        """The slash commands the agent offers (sent to it as a message: ``/name args``)."""
        if self.acp is None:
            return
        offered = self.acp.session.commands
        shown = getattr(self, "_commands_shown", None)
        if not offered or offered == shown:
            return
        self._commands_shown = list(offered)
        names = ", ".join("/" + str(c.get("name", "")) for c in offered)
        self.query_one(Transcript).add_notice(f"{self.agent} offers: {names}", "info")

    def action_stop(self) -> None:
        """Esc: the agent is told to stop (``session/cancel``)."""
        if self.acp is not None and self.busy:
            if self.router is not None:
                self.router.stopping = True
            self.acp.session.cancel()

    def withdraw_into_prompt(self) -> None:
        """For the router: a cancelled message stays with the agent (it has seen it)."""

    async def action_quit(self) -> None:
        await self._close()
        self.exit()

    async def on_unmount(self) -> None:
        await self._close()

    async def _close(self) -> None:
        if self.acp is None:
            return
        self.acp.session.cancel()
        for worker in [w for w in self.workers if w.group == "agent" and not w.is_finished]:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(worker.wait(), QUIT_WAIT_S)
        await self.acp.close()


class AcpApprover:
    """The agent's permission requests on the app's armed ApprovalPrompt (ui/approver.py's
    way, with the agent's workspace)."""

    def __init__(self, app: AcpApp) -> None:
        self.app = app

    async def decide(self, request: ApprovalRequest) -> Decision:
        from .notify import notify_person
        from .widgets.approval_prompt import ApprovalPrompt

        host = self.app.acp
        workspace = host.workspace if host is not None else Path(self.app.options.workspace or ".")
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        prompt = ApprovalPrompt(request, workspace=workspace, future=future)
        await self.app.query_one("#bottom").mount(prompt, before=0)
        self.app.query_one("#transcript").scroll_end(animate=False)
        notify_person(self.app, f"approval needed: {request.tool_name}")
        try:
            return await future
        finally:
            await prompt.remove()
            self.app.query_one(PromptInput).focus()
