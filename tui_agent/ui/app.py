"""The Textual app: transcript, side panel of calls, status bar, prompt, footer.

The first screen is drawn before anything heavy is imported; the session host (config,
provider, tools, session file) is opened in a worker right after. The agent's events are
consumed by an EventRouter in a worker on the app's own loop, and approvals are asked through
UIApprover, which mounts an ApprovalPrompt and awaits its decision.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, TextArea

from ..text.sanitize import prepare_exact
from ..wiring.host_options import HostOptions
from . import approval_mode, lean_imports, startup_gc
from .actions import Action, key_bindings, palette_entries, perform_named, run_slash
from .arming import Clock, KeyClock
from .jobs_view import attach_jobs
from .mcp_view import attach_mcp
from .message_queue import MessageQueue
from .prompt_tools import attach_prompt_tools
from .safe_app import SafeApp
from .themes import choose_theme
from .widgets.attachment_chips import AttachmentChips, show_attachments
from .widgets.image_thumbnail import drawn_inline
from .widgets.prompt_input import PromptInput
from .widgets.side_panel import SidePanel
from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript
from .workspace_trust import ask_workspace_trust

if TYPE_CHECKING:
    from ..agent.events import AgentEvent
    from ..wiring.host import SessionHost
    from .event_router import EventRouter
    from .shell import Shell

# How long a quit waits for the cancelled agent to write its last records: a bound, not a delay.
QUIT_WAIT_S = 5.0


def warm_after_open(client: object) -> None:
    """In a thread once the session is open: the HTTP client's transport (httpcore, the TLS
    context: transport/lazy.py), then the markdown widgets and lexers (``warm_markdown``), off
    the session's opening and the event loop (keys are read meanwhile)."""
    prepare = getattr(client, "prepare_transport", None)  # a LazyClient's (not imported here)
    if prepare is not None:
        prepare()
    warm_markdown()


def warm_markdown() -> None:
    """The markdown widgets (markdown-it, pygments) and the first code block's lexers, loaded
    ahead of the first answer, off the first screen and the session's opening. An answer that
    comes first imports them itself, waiting for this thread's import of a module where it is
    under way."""
    from .widgets import assistant_message, reasoning_block  # noqa: F401  (warm)
    from .widgets.frozen_markdown import warm_highlighting

    warm_highlighting()


class TuiAgentApp(SafeApp):
    # Absolute: Textual resolves a relative CSS_PATH against the file of the class in use,
    # which breaks any subclass defined elsewhere.
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "tui-agent"
    # Small terminals (app.tcss): the calls panel collapses when narrow, frames go when short.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-medium"), (100, "-wide")]  # noqa: RUF012  (Textual's type)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (20, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [*key_bindings()]  # the actions' table

    def __init__(
        self,
        options: HostOptions | None = None,
        *,
        theme_name: str | None = None,
        debug: bool = False,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.options = options or HostOptions()
        self.host: SessionHost | None = None
        self.router: EventRouter | None = None  # set once the session is open
        self.busy = False
        self.clock = Clock() if clock is None else clock  # the app's time (a test's own)
        self.key_clock = KeyClock(clock=self.clock)  # when the person last typed: see arming
        self._debug = debug
        # Set when the configuration, the profile or the session to resume cannot be used.
        self.startup_error: str | None = None
        self.added_actions: dict[str, Action] = {}  # actions.add_action
        # What the feature modules keep of this app, between one key and the next.
        self.queue = MessageQueue(self)  # messages typed while the agent works
        self.interrupted_at: float | None = None  # the last Ctrl+C that did not copy
        self.mode_before_plan: str | None = None  # the approval mode /plan replaced
        self.held_send: str | None = None  # a message waiting for its images to be prepared
        self._theme_warnings = choose_theme(self, theme_name)  # shown once mounted

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            yield Transcript(id="transcript")
            yield SidePanel(id="calls")
        with Vertical(id="bottom"):
            yield PromptInput(id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()
        self.prompt_tools = attach_prompt_tools(self)  # completion list: / commands, @files
        for warning in self._theme_warnings:
            self.notify(warning, severity="warning")

    def on_ready(self) -> None:
        # Only once the first frame is on screen: the boot imports httpx, pydantic, the
        # providers and the tools, and would otherwise delay it by their whole import time.
        # No collector passes over what they load until the session is open (startup_gc.py).
        startup_gc.pause()
        self._boot()
        self.run_worker(prepare_exact, thread=True, group="exact", exit_on_error=False)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.key_clock.key_event(event.time)  # before any widget gets the key
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        """A printable key no widget took (focus on a transcript item, a chip, the emptied
        queue): it is typing, so it goes into the message box, and focus with it."""
        if not event.is_printable or event.character is None or self.screen.is_modal:
            return
        focused = self.focused
        chain = (focused, *focused.ancestors) if focused is not None else (self.screen, self)
        # Not at the top: heavy (the approval rules, the tools, pydantic); loaded with a prompt.
        from .widgets.approval_prompt import ApprovalPrompt

        # Widgets that take typed text or decide about keys themselves.
        if any(isinstance(node, Input | TextArea | ApprovalPrompt) for node in chain):
            return  # a box or a prompt of its own decides about its keys
        if any(event.key in node._bindings.key_to_bindings for node in chain):
            return  # a key of the item's own (r on a message: rewind to here)
        box = self.screen.query(PromptInput)
        if not box or box.first().disabled:
            return
        event.stop()
        event.prevent_default()
        prompt = box.first()
        prompt.focus()
        prompt.insert(event.character)

    def action_focus_next(self) -> None:
        """Tab: to a waiting approval prompt first, from anywhere on the main screen."""
        prompts = [p for p in self.screen.query("ApprovalPrompt") if not p.disabled]
        focused = self.focused
        if prompts and not (focused is not None and prompts[0] in (focused, *focused.ancestors)):
            prompts[0].focus()
            return
        super().action_focus_next()

    # -- start and stop ---------------------------------------------------------------------

    @work(exclusive=True, group="boot")
    async def _boot(self) -> None:
        try:
            await self._open_first_session()
        finally:
            startup_gc.settle()

    async def _open_first_session(self) -> None:
        lean_imports.import_httpx_without_its_command_line()  # before anything imports httpx
        from ..config import ConfigError
        from ..logs import setup_logging
        from ..session import SessionError
        from ..tools.process_limits import install_exit_signals
        from ..wiring.host import open_host
        from .approver import UIApprover

        setup_logging(self._debug)
        install_exit_signals()  # SIGTERM/SIGHUP: no tool process outlives the app
        status = self.query_one(StatusBar)
        try:
            host = await open_host(self.options, UIApprover(self))
        except (ConfigError, SessionError) as exc:
            # Nothing can be done in this app without a profile and a session: quit at once
            # and let the command line print the one-line error (exit status 1).
            status.connection = "error: not configured"
            self.startup_error = str(exc)
            self.exit(return_code=1)
            return
        await self.show_session(host)
        # The session is open: what its first request and first answer need is made beside it.
        self.run_worker(
            partial(warm_after_open, host.client), thread=True, group="warm", exit_on_error=False
        )

    async def show_session(
        self, host: SessionHost, notice: str = "", *, options: HostOptions | None = None
    ) -> None:
        """Show ``host`` (opened already, with ``options`` when not the app's): its status, its
        notices and ``notice`` (when not empty), its MCP servers, context, sandbox and
        conversation. The app's first session is shown in the panes it started with, and the
        workspace's untrusted content is asked about then (once per app); any later one (a
        switch, /new) closes the current host first and gets fresh panes."""
        # Not at the top: they import the agent's events and the sandbox's probes, which the
        # first screen does without (they come with the boot, after it).
        from .context_view import attach_context
        from .event_router import EventRouter
        from .sandbox_view import show_sandbox

        old, self.host = self.host, host
        if options is not None:
            self.options = options
        if old is not None:
            await old.close()
            await self._fresh_panes()
        transcript = self.query_one(Transcript)
        self.router = EventRouter(self)
        status = self.query_one(StatusBar)
        status.profile = host.profile.name
        status.model = host.profile.model
        status.effort = host.profile.effort or ""
        status.mode = str(host.policy.mode)
        status.connection = "ready"
        status.tokens = host.tokens  # the resumed session's, not the last one's (0 when new)
        status.cost = host.agent.cost.shown(host.profile.model)
        if old is None:
            if host.profile.is_demo:
                status.hint = "offline demo model; see README to configure a provider"
        else:
            status.hint = "offline demo model" if host.profile.is_demo else ""
        for item in host.notices:
            transcript.add_notice(item.text, item.level)
        if notice:
            transcript.add_notice(notice, "info")
        attach_mcp(self, host)  # its servers: notices, "MCP n/m"
        attach_jobs(self, host)  # its background commands: "N jobs", a notice when one ends
        if old is None:
            # What the workspace brings that is not trusted: asked once per app (a switch to
            # another session does not ask again).
            ask_workspace_trust(self, host)
        attach_context(self, host)
        self.router.show_conversation(host)
        show_sandbox(self)  # the session's, from config

    async def _fresh_panes(self) -> None:
        """An empty transcript and calls panel in place of the old ones."""
        main = self.query_one("#main")
        old_panel = self.query_one(SidePanel)
        # Only what F2 chose is carried over: a panel hidden by the layout (empty, narrow) is not.
        chosen = old_panel.styles.inline.has_rule("display")
        shown = old_panel.display
        await self.query_one(Transcript).remove()
        await old_panel.remove()
        transcript = Transcript(id="transcript")
        panel = SidePanel(id="calls")
        if chosen:
            panel.display = shown
        await main.mount_all([transcript, panel])

    async def action_quit(self) -> None:
        if self.host is not None:
            self.host.agent.cancel()
            await self._agent_ended()  # its last records (a cancelled call) go in first
            await self.host.close()
        self.exit()

    async def on_unmount(self) -> None:
        """However the app ends (Ctrl+Q, serve's tab closed, a signal), its session closes: MCP
        servers are stopped as asked for, not found dead at exit and reported as failed."""
        startup_gc.settle()  # an app gone before its boot ran: the collector is on again
        if self.host is not None:
            self.host.agent.cancel()
            await self.host.close()

    async def _agent_ended(self) -> None:
        """Wait for the agent's worker to end after a cancel, so nothing it records on the way
        out meets a closed session file."""
        for worker in [w for w in self.workers if w.group == "agent" and not w.is_finished]:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(worker.wait(), QUIT_WAIT_S)

    # -- sending ----------------------------------------------------------------------------

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        if self.host is None:
            self.notify(
                "still starting, or not configured; see the notice above", severity="warning"
            )
            self.query_one(PromptInput).restore(message.text)
            return
        from .memory import ask_memory

        if ask_memory(self, message.text):  # "# always ...": saved to AGENTS.md, never sent
            return
        if self.held_send is not None and not _is_command(message.text):
            self.queue.add(message.text)  # after the message waiting for its images
            return
        if self.queue.queued(message.text):  # the agent is busy: sent when it waits for you
            return
        text = run_slash(self, message.text)  # /compact...; None when it was a command
        if text is None:
            return
        preparing = self.prompt_tools.mentions.preparing
        if preparing:  # it goes with its images: sent once they are prepared
            self.held_send = text
            names = ", ".join(preparing)
            self.notify(f"sent once {names} {'is' if len(preparing) == 1 else 'are'} prepared")
            return
        self._send(text)

    def on_attachment_chips_settled(self, message: AttachmentChips.Settled) -> None:
        """No image is being prepared any more: the message that waited for them goes, or,
        when one of them could not be attached, comes back to the box (never sent without)."""
        text, self.held_send = self.held_send, None
        if text is None or self.host is None:
            return
        if message.failed:
            prompt = self.query_one(PromptInput)
            draft = prompt.text  # typed meanwhile: kept after it
            prompt.restore(f"{text}\n{draft}" if draft.strip() else text)
            self.queue.loop_waits("cancelled")  # what was queued after it waits as well
            self.notify(
                f"not sent: {', '.join(message.failed)} could not be attached; "
                "your message is back in the box",
                severity="warning",
                markup=False,
            )
            return
        self._send(text)

    def _send(self, text: str) -> None:
        assert self.host is not None
        attachments = self.prompt_tools.mentions.take_all()  # @files: chips above the box
        self.query_one(Transcript).add_user(text)
        show_attachments(self.query_one(Transcript), attachments, drawn=drawn_inline(self.host))
        starting = self.host.mcp.starting() if self.host.mcp is not None else []
        if starting:  # the request offers only what is ready; a call to the rest is refused
            names = ", ".join(starting)
            self.query_one(Transcript).add_notice(
                f"MCP server{'s' if len(starting) > 1 else ''} {names} still starting: "
                "this message goes without their tools",
                "warning",
            )
        self.drive(self.host.agent.send(text, attachments))

    @work(exclusive=True, group="agent")
    async def drive(self, events: AsyncIterator[AgentEvent]) -> None:
        self.busy = True
        status = self.query_one(StatusBar)  # not in `finally`: the app may be gone by then
        from .turn_end import TurnEnd  # the agent's events: not first-screen (see on_ready)

        end = TurnEnd(self)  # the person is told, the next queued message sent
        try:
            async for event in events:
                if self.router is not None:  # always: nothing is sent before the session opens
                    self.router.handle(event)
                end.saw(event)
        finally:
            if self.router is not None:
                self.router.flush()
            self.busy = False
            status.connection = "ready"
        end.ended()

    def action_stop(self) -> None:
        """Esc: stop the stream (the turn is discarded, the message goes back to the input), or
        stop the running tools."""
        if self.host is not None and self.busy:
            if self.router is not None:
                self.router.stopping = True
            self.host.agent.cancel()

    def withdraw_into_prompt(self) -> None:
        """After Esc mid-stream: the user's message leaves history and goes back to the input."""
        if self.host is None:
            return
        text = self.host.agent.withdraw()
        if text is not None:
            prompt = self.query_one(PromptInput)
            prompt.restore(text)
            prompt.focus()

    # -- other actions ----------------------------------------------------------------------

    def set_approval_mode(self, mode: str, *, confirmed: bool = False) -> None:
        """Switch the approval mode; entering AUTO-ALL asks first (see approval_mode)."""
        approval_mode.set_approval_mode(self, mode, confirmed=confirmed)

    @work(exclusive=True, group="profile")
    async def switch_profile(self, name: str | None, model: str | None = None) -> None:
        """From the next turn on, use another profile and/or model; the conversation stays."""
        from ..config import ConfigError  # heavy, and loaded by the boot already

        if self.host is None:
            return
        if self.busy:
            self.notify("the agent is busy: Esc stops it first", severity="warning")
            return
        try:
            line = await self.host.switch_profile(name, model)
        except ConfigError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        status = self.query_one(StatusBar)
        status.profile = self.host.profile.name
        status.model = self.host.profile.model
        status.effort = self.host.profile.effort or ""
        status.hint = "offline demo model" if self.host.profile.is_demo else ""
        self.query_one(Transcript).add_notice(line, "info")
        from .context_view import attach_context  # not first-screen (see show_session)

        attach_context(self, self.host)  # another model: another window

    def on_user_message_rewind_requested(self, message: Any) -> None:
        from .rewind_action import open_rewind  # the agent's rewind: not first-screen

        open_rewind(self, message.text)

    async def switch_session(self, session_id: str) -> None:
        """Close this session and resume ``session_id`` in its place (see session_switch).

        Raises SessionError or ConfigError for the user; the current session is kept then."""
        from .session_switch import switch_session  # the session store: not first-screen

        await switch_session(self, session_id)

    def action_act(self, name: str) -> None:
        """A key of the actions' table (its bindings run ``act('name')``)."""
        perform_named(self, name)

    def get_system_commands(self, screen: Screen[Any]) -> Any:
        yield from super().get_system_commands(screen)  # Textual's own (actions.TEXTUAL_OWN)
        yield from palette_entries(self)


def _is_command(text: str) -> bool:
    return text.startswith("/") and not text.startswith("//")


# The app is what its feature modules take (shell.py): mypy fails here when it stops matching.
_FACE: type[Shell] = TuiAgentApp
