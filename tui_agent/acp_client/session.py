"""An ACP agent's session: the agent process, the protocol's client side (the official SDK),
and its prompts as the loop's events (updates.py).

``AcpSession.start()`` starts the agent (below the lifeline of mcp/lifeline.py: its own process
group, the whole tree killed when the session closes and when the app dies, also by SIGKILL),
runs ``initialize`` and ``session/new`` (or ``session/load`` to resume, where the agent offers
it). ``send(text)`` is one ``session/prompt`` as an async iterator of agent events, like
``Agent.send``; ``cancel()`` (Esc) sends ``session/cancel`` and answers a pending permission
request "cancelled". The agent's permission requests are asked through the ``Approver`` face
(the app's armed prompt, or ``run --approve``), after the approval mode and the session's rules
(``ApprovalPolicy``; permissions.py); its file reads and writes are served inside the workspace
(files.py), its terminals by the command sandbox (terminals.py); the SDK hands each of the
agent's requests over through agent_requests.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from ..agent.events import AgentEvent, Notice
from ..approval.approver import Approver
from ..approval.decision import Decision
from ..approval.policy import ApprovalPolicy
from ..checkpoints import Checkpointer
from ..mcp import lifeline
from ..sandbox.policy import SandboxPolicy
from ..session.records import NoteRecord, Record, UserRecord
from ..tools import process_limits
from ..tools.spec import ToolContext
from . import permissions
from .agent_requests import AgentRequests
from .files import read_text, write_text
from .terminals import TerminalRefused, Terminals
from .updates import AcpCall, PromptTurn

log = logging.getLogger(__name__)

SESSION_NOTE = "acp_session"  # the NoteRecord kind that keeps the agent's own session id
CANCEL_WAIT_S = 10.0  # how long a cancelled prompt waits for the agent's answer
START_TIMEOUT_S = 60.0  # initialize and session/new (an npx agent may install itself first)
STDERR_LINES = 20  # the agent's last stderr lines kept, to say why it failed
CLOSE_WAIT_S = 2.0  # how long a closing session waits for the agent to end by itself (the SDK's)


class AcpError(Exception):
    """The agent could not be started or did not answer as the protocol says."""


class AcpSession:
    """One agent process and one of its sessions. ``close()`` must be awaited."""

    def __init__(
        self,
        name: str,
        command: list[str],
        env: dict[str, str],
        *,
        workspace: Path,
        approver: Approver,
        policy: ApprovalPolicy,
        writer: Any,  # session/writer.py SessionWriter (or anything with append)
        protected: tuple[Path, ...] = (),
        checkpointer: Checkpointer | None = None,
        resume: str | None = None,
        sandbox: SandboxPolicy | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.command = command
        self.env = env
        self.workspace = workspace
        self.approver = approver
        self.policy = policy
        self.writer = writer
        self.checkpointer = checkpointer
        self.context = ToolContext(
            workspace=workspace,
            protected=protected,
            sandbox=sandbox or SandboxPolicy(),
            secret_values=secrets,
        )
        self.terminals = Terminals(self.context, checkpointer=checkpointer, write=self._synced)
        self.resume = resume
        self.session_id = ""
        self.loaded = False  # resumed through session/load
        self.can_load = False
        self.agent_title = name
        self.commands: list[dict[str, Any]] = []  # the slash commands the agent advertised
        self.sent_anything = False
        self.calls: dict[str, AcpCall] = {}
        self._conn: Any = None
        self._process: asyncio.subprocess.Process | None = None
        self._stderr: list[str] = []
        self._stderr_task: asyncio.Task[None] | None = None
        self._turn: PromptTurn | None = None
        self._emit: Any = None
        self._asking: asyncio.Future[Decision] | None = None
        self._cancelled = False
        self._cancelling: asyncio.Future[None] | None = None
        self._writes = 0

    # -- start and stop --------------------------------------------------------------------

    async def start(self) -> list[Notice]:
        """Start the agent and open its session; AcpError says why not."""
        import acp  # about a second to import: only when an agent is used
        from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

        env = {**os.environ, **self.env}
        argv = [sys.executable, "-I", "-S", lifeline.__file__, str(os.getpid()), *self.command]
        try:
            self._process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=str(self.workspace),
                start_new_session=True,
                limit=50 * 1024 * 1024,
            )
        except OSError as exc:
            raise AcpError(f"cannot start agent {self.name}: {exc.strerror or exc}") from None
        process_limits.started(self._process.pid)
        self._stderr_task = asyncio.create_task(self._read_stderr())
        assert self._process.stdin is not None and self._process.stdout is not None
        # Not all of the SDK's Client face: no elicitation (not advertised; the SDK answers
        # "method not found" for what a client lacks).
        client: Any = AgentRequests(self)
        self._conn = acp.connect_to_agent(client, self._process.stdin, self._process.stdout)
        notices: list[Notice] = []
        try:
            init = await self._answer(
                self._conn.initialize(
                    protocol_version=acp.PROTOCOL_VERSION,
                    client_capabilities=ClientCapabilities(
                        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                        terminal=True,
                    ),
                    client_info=Implementation(name="tui-agent", title="tui-agent", version="0"),
                ),
                "initialize",
            )
            caps = init.agent_capabilities
            self.can_load = bool(caps is not None and caps.load_session)
            if init.agent_info is not None:
                self.agent_title = init.agent_info.title or init.agent_info.name or self.name
            cwd = str(self.workspace)
            why_not = "no loadSession capability"
            if self.resume and self.can_load:
                try:
                    await self._answer(
                        self._conn.load_session(cwd=cwd, session_id=self.resume, mcp_servers=[]),
                        "session/load",
                    )
                except AcpError as exc:
                    why_not = str(exc)
                else:
                    self.session_id, self.loaded = self.resume, True
                    notices.append(Notice(f"{self.agent_title} resumed its session {self.resume}"))
            if not self.loaded:
                if self.resume:
                    notices.append(
                        Notice(
                            f"{self.agent_title} did not load its saved session ({why_not}): "
                            "it starts a new one; the conversation above is tui-agent's "
                            "record only",
                            "warning",
                        )
                    )
                opened = await self._answer(
                    self._conn.new_session(cwd=cwd, mcp_servers=[]), "session/new"
                )
                self.session_id = opened.session_id
                self.writer.append(NoteRecord(kind=SESSION_NOTE, text=self.session_id))
        except BaseException:
            await self.close()
            raise
        return notices

    async def _answer(self, request: Any, what: str) -> Any:
        """The agent's answer to ``request``; AcpError when it fails, dies or takes too long."""
        waiting = asyncio.ensure_future(request)
        try:
            return await asyncio.wait_for(waiting, START_TIMEOUT_S)
        except TimeoutError:
            raise AcpError(f"agent {self.name} did not answer {what}{self._why()}") from None
        except Exception as exc:
            why = f"{_said(exc)}{self._why()}"
            raise AcpError(f"agent {self.name} failed at {what}: {why}") from None

    def _why(self) -> str:
        tail = [line for line in self._stderr if line.strip()][-3:]
        return f" (it said: {' / '.join(tail)})" if tail else ""

    async def _read_stderr(self) -> None:
        stream = self._process.stderr if self._process is not None else None
        if stream is None:
            return
        with contextlib.suppress(Exception):
            while line := await stream.readline():
                text = line.decode("utf-8", "replace").rstrip()
                log.debug("agent %s: %s", self.name, text)
                self._stderr = [*self._stderr[-(STDERR_LINES - 1) :], text]

    async def close(self) -> None:
        """End the agent: its connection, its terminals, then its whole process tree."""
        self.cancel()
        with contextlib.suppress(Exception):
            await self.terminals.close()
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()
            self._conn = None
        process = self._process
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(Exception):
                    process.stdin.close()
            with contextlib.suppress(TimeoutError):
                # Its stdin closed, an agent may end by itself once it has saved what it
                # keeps (as the SDK's own spawn waits): a bound, then SIGTERM.
                await asyncio.wait_for(process.wait(), CLOSE_WAIT_S)
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)  # the lifeline ends the agent's tree
                try:
                    await asyncio.wait_for(process.wait(), 3.0)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(process.pid, signal.SIGKILL)
                    with contextlib.suppress(Exception):
                        await process.wait()
            process_limits.ended(process.pid)
        if self._stderr_task is not None:
            self._stderr_task.cancel()

    # -- a prompt --------------------------------------------------------------------------

    async def send(self, text: str) -> AsyncGenerator[AgentEvent, None]:
        """One ``session/prompt`` with ``text``, as the loop's events, until its answer."""
        from acp import text_block

        self.sent_anything = True
        self._cancelled = False
        queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()
        self._emit = queue.put_nowait
        turn = PromptTurn(
            self.name, queue.put_nowait, self._write, self.calls, terminal=self._terminal_text
        )
        self._turn = turn
        self.writer.append(UserRecord(ts=time.time(), text=text), sync=True)
        prompt = asyncio.ensure_future(
            self._conn.prompt(session_id=self.session_id, prompt=[text_block(text)])
        )
        prompt.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while True:
                if self._cancelled and not prompt.done():
                    event = await self._within_cancel_wait(queue, prompt)
                else:
                    event = await queue.get()
                if event is None:
                    break
                yield event
            stop, error = self._outcome(prompt)
            # The last step's records (a long answer's raw updates redacted: ~0.1-0.3 s at
            # 200 KB) are written in a worker thread, the screen going on meanwhile.
            held: list[Record] = []
            turn.write = held.append
            turn.finish(stop, error)
            turn.write = self._write
            await self._write_off_loop(held)
            while not queue.empty():
                event = queue.get_nowait()
                if event is not None:
                    yield event
        finally:
            if not prompt.done():  # the caller stopped listening: the agent stops too
                self.cancel()
                prompt.cancel()
            if turn.commands is not None:
                self.commands = turn.commands
            self._turn = None

    async def _within_cancel_wait(
        self, queue: asyncio.Queue[AgentEvent | None], prompt: asyncio.Future[Any]
    ) -> AgentEvent | None:
        """After a cancel: the next event, but the agent gets only so long to answer."""
        try:
            return await asyncio.wait_for(queue.get(), CANCEL_WAIT_S)
        except TimeoutError:
            prompt.cancel()
            return None

    def _outcome(self, prompt: asyncio.Future[Any]) -> tuple[str | None, str | None]:
        if prompt.cancelled():
            return "cancelled", None
        exc = prompt.exception()
        if exc is not None:
            if self._cancelled:
                return "cancelled", None
            return None, f"{_said(exc)}{self._why()}"
        return str(prompt.result().stop_reason), None

    def cancel(self) -> None:
        """Esc: the agent is told to stop (``session/cancel``); a question waiting is answered
        "cancelled"."""
        if self._turn is None or self._cancelled:
            return
        self._cancelled = True
        if self._asking is not None:
            self._asking.cancel()
        if self._conn is not None and self.session_id:
            self._cancelling = asyncio.ensure_future(self._send_cancel())

    async def _send_cancel(self) -> None:
        with contextlib.suppress(Exception):
            await self._conn.cancel(session_id=self.session_id)

    def _write(self, record: Record) -> None:
        self.writer.append(record)

    async def _write_off_loop(self, records: list[Record]) -> None:
        """Write ``records`` in order in a worker thread (the writer is thread-safe), awaited to
        the end even when the caller is cancelled meanwhile."""
        if not records:
            return

        def write_all() -> None:
            for record in records:
                self.writer.append(record)

        write = asyncio.ensure_future(asyncio.to_thread(write_all))
        try:
            await asyncio.shield(write)
        except asyncio.CancelledError:
            await write
            raise

    def _synced(self, record: Record) -> None:
        self.writer.append(record, sync=True)

    def _terminal_text(self, terminal_id: str) -> str:
        try:
            output, truncated, ended = self.terminals.output(terminal_id)
        except TerminalRefused:
            return f"[terminal {terminal_id}]"
        cut = "[the start of the output was cut]\n" if truncated else ""
        if ended is None:
            how = "still running"
        elif ended["signal"]:
            how = f"ended by {ended['signal']}"
        else:
            how = f"exit code {ended['exit_code']}"
        return f"{cut}{output.rstrip()}\n[{how}]".lstrip("\n")

    # -- what the agent asks of the client -------------------------------------------------

    async def permission(self, tool_call: dict[str, Any], options: list[Any]) -> Any:
        """``session/request_permission``: the policy, then the approver; an option back."""
        turn = self._turn
        call_id = tool_call.get("toolCallId")
        if turn is None or self._cancelled or not isinstance(call_id, str):
            return permissions.cancelled()
        call = turn.calls.get(call_id)
        if call is None:
            call = turn.announce(call_id, {**tool_call, "sessionUpdate": "tool_call"})
        else:
            call.merge(tool_call)
        decision, by = await permissions.decide(
            call,
            self.policy,
            self.approver,
            workspace=self.workspace,
            agent_title=self.agent_title,
            asking=self._asked,
        )
        turn.decided(call, decision.kind, by, decision.reason)
        if decision.kind == "cancel":
            self.cancel()
        return permissions.answer(decision, options)

    def _asked(self, question: asyncio.Future[Decision] | None) -> None:
        self._asking = question  # cancel() answers it "cancelled"

    def updated(self, data: dict[str, Any]) -> None:
        """``session/update``: to the prompt's turn; between prompts, the agent's commands."""
        if self._turn is not None:
            self._turn.update(data)
        elif data.get("sessionUpdate") == "available_commands_update":
            commands = data.get("availableCommands")
            if isinstance(commands, list):
                self.commands = [c for c in commands if isinstance(c, dict)]

    def current_call(self) -> str:
        """The call a file write belongs to: the agent's latest running (or approved) call."""
        turn = self._turn
        if turn is not None:
            for call in reversed(list(self.calls.values())):
                if not call.finished and (call.started or call.decision == "approve"):
                    return call.id
        self._writes += 1
        return f"acp-write-{self._writes}"

    async def create_terminal(
        self,
        command: str,
        args: list[str],
        env: dict[str, str],
        cwd: str | None,
        output_limit: int | None,
    ) -> str:
        call_id = self.current_call()
        return await self.terminals.create(command, args, env, cwd, output_limit, call_id)

    async def read_file(self, path: str, line: int | None, limit: int | None) -> str:
        return await asyncio.to_thread(read_text, self.context, path, line, limit)

    async def write_file(self, path: str, content: str) -> None:
        await write_text(
            self.context,
            path,
            content,
            checkpointer=self.checkpointer,
            call_id=self.current_call(),
            write=lambda record: self.writer.append(record, sync=True),
        )


def _said(exc: BaseException) -> str:
    """What an exception says, on one line (a JSON-RPC error's message and data)."""
    text = str(exc) or type(exc).__name__
    data = getattr(exc, "data", None)
    if data:
        text = f"{text} {data}"
    return " ".join(text.split())
