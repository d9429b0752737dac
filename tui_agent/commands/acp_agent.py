"""`tui-agent acp`: tui-agent's own agent served over the Agent Client Protocol on stdio.

An ACP client (an editor) starts this command and speaks JSON-RPC on its stdin and stdout,
through the official SDK (module ``acp``). Each ``session/new`` opens a host as ``run`` does
(``wiring/host.py``: config, profile, workspace = the session's ``cwd``, session file, tools,
MCP servers of config.toml and a trusted ``.mcp.json``; the client's ``mcpServers`` are not
used). ``session/prompt`` sends one user message through the agent loop and streams its events
as session updates (``acp_updates.py``); calls the approval mode and rules leave open are asked
through ``session/request_permission`` (``acp_approver.py``). The loop's rules hold as
everywhere: a call runs only from a complete turn, validated and approved; a truncated turn
runs nothing and saves no assistant turn. ``session/cancel`` stops the turn. Sessions are saved
in the app's format, so ``tui-agent sessions`` lists them and ``session/load`` resumes them.

The protocol owns stdin and stdout (``acp_stdio.py``); notices go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.helpers import update_available_commands
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionModeResponse,
    StopReason,
)

from ..agent.events import LoopEnded, Notice, TurnTruncated
from ..approval.policy import ApprovalMode
from ..config import ConfigError, load_config, resolve_profile
from ..session import SessionError, SessionStore
from ..session.paths import sessions_dir
from ..session.summary import same_workspace
from ..text.sanitize import visible_line
from ..transport import RetryWait
from ..wiring.host import SessionHost, open_host
from ..wiring.host_options import HostOptions
from .acp_approver import AcpApprover
from .acp_commands import COMMANDS, MODES, compact, compact_instructions, session_modes
from .acp_prompt import PromptMessage, prompt_message
from .acp_stdio import claim_stdio, stdio_streams
from .acp_updates import CallViews, TurnUpdates, replayed
from .exit_status import EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from acp.interfaces import Agent as AcpInterface

LIST_PAGE = 100
PROMPT_BUSY = "a prompt is already running in this session; cancel it first"


def main(args: argparse.Namespace) -> int:
    try:  # what can be found wrong before a client connects: config.toml, the profile
        resolve_profile(
            load_config(),
            profile=args.profile,
            protocol=args.protocol,
            model=args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
        )
    except ConfigError as exc:
        _say(" ".join(line.strip() for line in str(exc).splitlines() if line.strip()))
        return EXIT_USAGE
    protocol_in, protocol_out = claim_stdio()
    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        asyncio.run(_serve(args, protocol_in, protocol_out))
    return EXIT_OK


def _say(text: str) -> None:
    with contextlib.suppress(OSError):
        print(f"tui-agent acp: {visible_line(text)}", file=sys.stderr, flush=True)


async def _serve(args: argparse.Namespace, protocol_in: BinaryIO, protocol_out: BinaryIO) -> None:
    task = asyncio.current_task()
    if task is not None:  # as `run`: SIGTERM and SIGHUP end it cleanly, tools killed
        for signum in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                asyncio.get_running_loop().add_signal_handler(signum, task.cancel)
    reader, writer = await stdio_streams(protocol_in, protocol_out)
    agent = AcpAgent(args)
    try:
        # Not a subclass of acp.Agent: the SDK routes every method a class has, so the
        # Protocol's empty defaults would answer what is not served (session/list...) with null.
        await run_agent(cast("AcpInterface", agent), writer, reader)
    finally:
        await asyncio.shield(agent.close())


@dataclass
class AcpSession:
    """One ACP session: a host as `run` opens it, its approver and how its calls are shown."""

    host: SessionHost
    approver: AcpApprover
    views: CallViews
    busy: bool = False
    cancelling: bool = False
    notices: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.host.writer.session_id

    def cancel(self) -> None:
        self.cancelling = True
        self.host.agent.cancel()


class AcpAgent:
    """The ACP Agent face (``acp.interfaces.Agent``) over tui-agent's hosts."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.client: Any = None  # acp.interfaces.Client, given by on_connect
        self.sessions: dict[str, AcpSession] = {}
        self._later: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        # What is served: text prompts, images, resource links and embedded text resources
        # (attached as the app's @ files and pasted images: acp_prompt.py), session/load and
        # session/list; no audio, no MCP servers of the client's, no authentication (the key
        # is the environment's, as for `run`).
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=False, sse=False),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="tui-agent", title="tui-agent", version=_version()),
            auth_methods=[],
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        _not_used(mcp_servers)
        session = await self._open(cwd, resume=None)
        self._after_answer(self._advertise(session))
        return NewSessionResponse(
            session_id=session.id, modes=session_modes(session.host.policy.mode)
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        _not_used(mcp_servers)
        if (open_already := self.sessions.pop(session_id, None)) is not None:
            open_already.cancel()
            await open_already.host.close()
        session = await self._open(cwd, resume=session_id)
        for update in replayed(session.host.history, session.views):
            await self.client.session_update(session_id=session.id, update=update)
        self._after_answer(self._advertise(session))
        return LoadSessionResponse(modes=session_modes(session.host.policy.mode))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """The saved sessions (of ``cwd`` when given), most recently updated first, as
        `tui-agent sessions` lists them; a page of ``LIST_PAGE``, the cursor its offset."""
        start = int(cursor) if cursor is not None and cursor.isdigit() else 0
        summaries = await asyncio.to_thread(SessionStore(sessions_dir()).list)
        if cwd is not None:
            summaries = [s for s in summaries if same_workspace(s.workspace, cwd)]
        page = summaries[start : start + LIST_PAGE]
        more = start + LIST_PAGE < len(summaries)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=s.id,
                    cwd=s.workspace,
                    title=s.title,
                    updated_at=datetime.fromtimestamp(s.updated, UTC).isoformat(),
                )
                for s in page
            ],
            next_cursor=str(start + LIST_PAGE) if more else None,
        )

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """The client picked an approval mode (the app's F3): from the next decision on; a
        call waiting for its answer is decided again under it, as in the app."""
        session = self._session(session_id)
        if mode_id not in MODES:
            known = ", ".join(MODES)
            raise RequestError.invalid_params({"message": f"no mode {mode_id!r}; modes: {known}"})
        policy = session.host.policy
        if str(policy.mode) != mode_id:
            policy.mode = ApprovalMode(mode_id)
            session.host.agent.calls.mode_changed()
            _say(f"approval mode: {mode_id}")
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.busy:
            raise RequestError.invalid_request({"message": PROMPT_BUSY})
        session.busy, session.cancelling = True, False
        try:
            context = session.host.agent.calls.context
            message = await asyncio.to_thread(prompt_message, prompt, context, _say)
            if session.cancelling:  # cancelled while its files were read: nothing was sent
                return PromptResponse(stop_reason="cancelled")
            instructions = compact_instructions(message.text, message.attachments)
            if instructions is not None:
                await compact(session.host, instructions, self._sender(session), _say)
                return PromptResponse(stop_reason="cancelled" if session.cancelling else "end_turn")
            ended = await self._turn(session, message)
        finally:
            session.busy = False
        return PromptResponse(stop_reason=_stop_reason(session, *ended))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.busy:
            session.cancel()

    async def close(self) -> None:
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            session.cancel()
            with contextlib.suppress(Exception):
                await session.host.close()

    # -- what they do --------------------------------------------------------------------

    async def _open(self, cwd: str, resume: str | None) -> AcpSession:
        if not os.path.isabs(cwd) or not Path(cwd).is_dir():
            raise RequestError.invalid_params({"message": f"cwd is not an absolute folder: {cwd}"})
        args = self.args
        options = HostOptions(
            profile=args.profile,
            protocol=args.protocol,
            model=args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            workspace=cwd,
            resume=resume,
            trust_workspace=args.trust_workspace,
        )
        approver = AcpApprover()
        try:
            host = await open_host(options, approver, wait_for_tools=True, retry_on_overflow=True)
        except (ConfigError, SessionError) as exc:
            message = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            raise RequestError(-32602 if resume else -32603, message) from None
        views = CallViews(host.workspace, host.agent.calls.registry.get, host.redactor)
        host.agent.calls.on_validated = views.validated
        approver.connect(self.client, host.writer.session_id, views)
        session = AcpSession(host, approver, views)
        self.sessions[session.id] = session
        for notice in host.notices:
            self._notice(session, notice)
        pending = host.untrusted_content()
        if not pending.empty:
            _say(
                f"not trusted, so not used: {', '.join(pending.names())}; open tui-agent in "
                "this workspace to see and trust them, or start `tui-agent acp "
                "--trust-workspace`"
            )
        return session

    def _after_answer(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` once the request being handled is answered: the SDK queues the answer
        as soon as its handler returns, before a task made now takes its first step."""
        task = asyncio.ensure_future(work)
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def _advertise(self, session: AcpSession) -> None:
        """The session's commands (an editor offers them after ``/``)."""
        with contextlib.suppress(Exception):  # a client gone by now has nothing to show them
            update = update_available_commands(COMMANDS)
            await self.client.session_update(session_id=session.id, update=update)

    def _sender(self, session: AcpSession) -> Callable[[Any], Awaitable[None]]:
        async def send(update: Any) -> None:
            await self.client.session_update(session_id=session.id, update=update)

        return send

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"message": f"no open session {session_id!r}"})
        return session

    async def _turn(
        self, session: AcpSession, message: PromptMessage
    ) -> tuple[LoopEnded | None, TurnTruncated | None]:
        updates = TurnUpdates(session.views)
        ended: LoopEnded | None = None
        truncated: TurnTruncated | None = None
        sent = session.host.agent.send(message.text, message.attachments)
        async with contextlib.aclosing(sent) as events:
            async for event in events:
                for update in updates.of(event):
                    await self.client.session_update(session_id=session.id, update=update)
                if isinstance(event, Notice):
                    self._notice(session, event)
                elif isinstance(event, RetryWait):
                    why, attempt = event.why, event.attempt
                    _say(f"retrying in {event.seconds:.1f} s ({why}), attempt {attempt}")
                elif isinstance(event, TurnTruncated):
                    truncated = event
                elif isinstance(event, LoopEnded):
                    ended = event
        for update in updates.flush():
            await self.client.session_update(session_id=session.id, update=update)
        return ended, truncated

    def _notice(self, session: AcpSession, notice: Notice) -> None:
        _say(f"{notice.level}: {session.host.redactor.redact(notice.text)}")


def _not_used(mcp_servers: list[Any] | None) -> None:
    """The client's MCP servers are not started (config.toml's and a trusted .mcp.json's are):
    say so, so nobody wonders where their tools went."""
    names = [str(getattr(server, "name", "?")) for server in mcp_servers or ()]
    if names:
        shown = ", ".join(names)
        _say(f"the client's MCP servers are not used (add them to config.toml): {shown}")


def _stop_reason(
    session: AcpSession, ended: LoopEnded | None, truncated: TurnTruncated | None
) -> StopReason:
    """How the prompt ended, as ACP names it; a failure it has no name for is an error."""
    if session.cancelling or ended is None:
        return "cancelled"
    if ended.outcome == "complete":
        return "end_turn"
    if ended.outcome == "max_steps":
        return "max_turn_requests"
    if ended.outcome == "cancelled":  # also a hook that kept the message from being sent
        return "cancelled"
    if ended.outcome == "truncated" and truncated is not None:
        if truncated.turn.reason == "length":
            return "max_tokens"
        if truncated.turn.reason == "filtered":
            return "refusal"
    message = session.host.redactor.redact(ended.message or ended.outcome)
    raise RequestError(-32603, message, {"outcome": ended.outcome})


def _version() -> str:
    try:
        return version("tui-agent")
    except PackageNotFoundError:
        return "0"
