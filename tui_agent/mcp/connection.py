"""One MCP server: started in its own task, used by tool calls from any task, stopped for good.

The SDK's transports and session are async context managers that must be entered and left in one
task, so each server has a task that opens them, initializes, lists the tools and then waits to be
stopped. Calls use the session from the agent's task. A stdio server runs below a lifeline
(mcp/process_group.py): leaving the transport closes its stdin, and the server's whole tree ends
with it, or with the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from ..tools.spec import ToolOutput
from .bounded_http import bounded_client
from .config import McpConfigError, McpServerConfig, expand_variables
from .limits import REFUSED_CODE, McpLimits
from .process_group import Spawned, end, recorder
from .results import has_images, result_output
from .start import (
    base_environment,
    check_workspace_args,
    check_workspace_command,
    check_workspace_env,
    start_folder,
)
from .stderr_log import StderrLog

Status = Literal["starting", "ready", "failed", "disabled", "stopped"]
WATCH_INTERVAL_S = 0.5
STOP_TIMEOUT_S = 8.0  # the SDK's own shutdown is bounded by about 6 s
MAX_TOOL_PAGES = 100
# A failed server's last stderr lines are read before its notice is written (the loop waits).
_STDERR_SETTLE_S = 0.5
_log = logging.getLogger("tui_agent.mcp")
CLIENT_INFO = types.Implementation(name="tui-agent", version="0.1.0")


def _without_traceback(record: logging.LogRecord) -> bool:
    """The SDK logs a line it cannot parse with a traceback (to the log, or the terminal of
    ``run``): the message says enough."""
    record.exc_info, record.exc_text = None, None
    return True


for _noisy in ("mcp.client.stdio", "mcp.client.streamable_http"):
    logging.getLogger(_noisy).addFilter(_without_traceback)


class McpConnection:
    """A server's state (``status``, ``error``, ``tools``) and its session while it is ready.

    ``on_change`` runs when the status or the tool list changed; ``on_notice`` gets what the person
    should read (a failure with the tail of the server's stderr, a changed tool list).
    """

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        workspace: Path,
        on_change: Callable[[McpConnection], None],
        on_notice: Callable[[str, str], None],
        limits: McpLimits | None = None,
    ) -> None:
        self.name = name
        self.limits = limits or McpLimits()
        self.config = config
        self.workspace = workspace
        self.status: Status = "starting" if config.enabled else "disabled"
        self.error: str | None = None if config.enabled else "disabled in the config"
        self.tools: list[types.Tool] = []
        self.secrets: list[str] = []  # values read from ${VAR}: redacted wherever shown
        self._on_change = on_change
        self._on_notice = on_notice
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._stop: asyncio.Event | None = None
        self._stderr: StderrLog | None = None
        self._process: Any = None  # the stdio server's process, once spawned
        self._refreshing: set[asyncio.Task[None]] = set()
        self._changes_waiting = False  # a tools/list_changed came while a refresh was due
        self._last_refresh = float("-inf")  # the loop's time of the last tools/list
        self.refreshes = 0  # tools/list after a change, for whoever wants to count them
        self.settled = asyncio.Event()  # ready or failed (or disabled): start() is over
        if not config.enabled:
            self.settled.set()

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start in the background; ``settled`` is set once ready or failed."""
        if not self.config.enabled or (self._task is not None and not self._task.done()):
            return
        self.status, self.error, self.tools = "starting", None, []
        self.settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._main(), name=f"mcp server {self.name}")
        self._on_change(self)

    async def stop(self) -> None:
        """Close the session and end the server (and its children); bounded in time."""
        task = self._task
        if task is None:
            return
        if self._stop is not None:
            self._stop.set()
        if self.status == "starting" and self._scope is not None:
            self._scope.cancel()
        await asyncio.wait({task}, timeout=STOP_TIMEOUT_S)
        if not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_TIMEOUT_S)
        for refresh in list(self._refreshing):
            refresh.cancel()
        self._task = None
        if self.status in ("starting", "ready"):
            self.status = "stopped"
        self.settled.set()

    async def restart(self) -> None:
        await self.stop()
        self.start()

    async def _main(self) -> None:
        assert self._stop is not None
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                async with contextlib.AsyncExitStack() as stack:
                    read, write = await self._open(stack)
                    session = await stack.enter_async_context(
                        ClientSession(
                            read, write, message_handler=self._on_message, client_info=CLIENT_INFO
                        )
                    )
                    with anyio.fail_after(self.config.startup_timeout):
                        await session.initialize()
                        tools = await _list_tools(session)
                    self._session, self.tools, self.status = session, tools, "ready"
                    self.settled.set()
                    self._on_change(self)
                    await self._watch()
                    self._session = None
            if scope.cancelled_caught and self.status == "starting":
                self._fail("stopped before it was ready")
        except TimeoutError:
            timeout = self.config.startup_timeout
            self._fail(f"did not answer initialize and tools/list within {timeout:g} s")
        except McpConfigError as exc:
            self._fail(str(exc))
        except Exception as exc:
            self._fail(_describe(exc, self.config))
        finally:
            self._session = None
            self._scope = None
            self.settled.set()

    async def _watch(self) -> None:
        """Until stopped; a stdio server that exits is lost even if a child holds its pipes."""
        assert self._stop is not None
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), WATCH_INTERVAL_S)
            code = getattr(self._process, "returncode", None)
            if code is not None and not self._stop.is_set():
                self._lost(f"the server exited (status {code})")

    def _end_group(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            end(process)

    async def _open(self, stack: contextlib.AsyncExitStack) -> Any:
        config = self.config
        where = f"MCP server {self.name!r}"
        if config.command is not None:
            own = {
                key: self._expand(value, f"{where} env {key}") for key, value in config.env.items()
            }
            if config.from_workspace:
                check_workspace_env(own, self.workspace, where)
                check_workspace_command(config.command, self.workspace, where)
            env = {**base_environment(self.workspace, get_default_environment()), **own}
            cwd = start_folder(
                config.cwd, self.workspace, from_workspace=config.from_workspace, where=where
            )
            if config.from_workspace:
                check_workspace_args(config.args, cwd, self.workspace, where)
            stderr = StderrLog(self.name, on_closed=self._on_exit)
            self._stderr = stderr
            stack.callback(stderr.close_writer)
            assert stderr.writer is not None
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=env, cwd=str(cwd)
            )
            limits = self.limits
            spawned = recorder(Spawned(limits.max_message_bytes, limits.max_depth, self._refused))
            stack.callback(self._end_group)
            streams = await stack.enter_async_context(stdio_client(params, errlog=stderr.writer))
            stderr.close_writer()  # the server holds its own copy now
            self._process = spawned.processes[0] if spawned.processes else None
            return streams
        assert config.url is not None
        headers = {
            key: self._expand(value, f"{where} header {key}")
            for key, value in config.headers.items()
        }
        limit = self.limits.max_message_bytes
        client = await stack.enter_async_context(bounded_client(headers, limit))
        return await stack.enter_async_context(
            streamable_http_client(config.url, http_client=client, max_sse_event_size=limit)
        )

    def _expand(self, text: str, where: str) -> str:
        value, used = expand_variables(text, where)
        self.secrets += [secret for secret in used if secret]
        return value

    def _refused(self, why: str) -> None:
        _log.warning("mcp server %s: %s", self.name, why)

    def _fail(self, why: str) -> None:
        self.status, self.error, self.tools = "failed", why, []
        tail = ""
        if self._stderr is not None:
            self._stderr.settle(_STDERR_SETTLE_S)
            tail = self._stderr.tail()
        text = f"MCP server {self.name!r} failed: {why}"
        if tail:
            text += f"\nlast lines of its stderr:\n{tail}"
        _log.warning("%s", text)
        self._on_notice(text, "warning")
        self._on_change(self)

    def _on_exit(self) -> None:
        """The server's stderr closed: it exited. Unexpected unless we are stopping it."""
        if self.status == "ready" and self._stop is not None and not self._stop.is_set():
            self._lost("the server exited")

    def _lost(self, why: str) -> None:
        if self.status != "ready":
            return
        self._fail(why)
        if self._stop is not None:
            self._stop.set()  # let the task leave the transport: the process group is ended

    # -- what the tools do ----------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolOutput:
        """Call ``tool``; every failure is an error result for the model, never an exception.

        Cancelling the calling task sends the protocol's cancellation (the SDK does) and
        propagates, so the call ends as cancelled.
        """
        session = self._session
        if session is None or self.status != "ready":
            why = f": {self.error}" if self.error else ""
            return ToolOutput(
                f"MCP server {self.name!r} is not running ({self.status}{why})", is_error=True
            )
        try:
            result = await session.call_tool(
                tool, arguments, read_timeout_seconds=self.config.tool_timeout
            )
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                self._lost("the connection closed during a call")
                return ToolOutput(
                    f"MCP server {self.name!r} stopped during the call: {self.error}",
                    is_error=True,
                )
            if exc.code == types.REQUEST_TIMEOUT:
                timeout = self.config.tool_timeout
                return ToolOutput(
                    f"no result within tool_timeout ({timeout:g} s); the server was told to cancel",
                    is_error=True,
                )
            if exc.code == REFUSED_CODE:
                return ToolOutput(f"MCP server {self.name!r}: {exc.message}", is_error=True)
            return ToolOutput(f"MCP server {self.name!r} refused the call: {exc}", is_error=True)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            self._lost(f"the connection broke during a call ({type(exc).__name__})")
            return ToolOutput(f"MCP server {self.name!r} stopped during the call", is_error=True)
        if has_images(result):  # decoded and scaled in a worker thread
            return await anyio.to_thread.run_sync(result_output, result)
        return result_output(result)

    async def _on_message(self, message: Any) -> None:
        message = getattr(message, "root", message)
        if isinstance(message, types.ToolListChangedNotification):
            if self._refreshing:  # one is due or running: it reads the list again after
                self._changes_waiting = True
                return
            task = asyncio.create_task(self._refresh_soon())
            self._refreshing.add(task)
            task.add_done_callback(self._refreshing.discard)
        elif isinstance(message, Exception):
            _log.info("mcp server %s: transport error: %s", self.name, message)

    async def _refresh_soon(self) -> None:
        """tools/list now, or once ``list_changed_interval_s`` passed since the last one; again
        after it if more changes were announced meanwhile (a storm costs one list a period)."""
        loop = asyncio.get_running_loop()
        interval = self.limits.list_changed_interval_s
        while True:
            wait = self._last_refresh + interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self._changes_waiting = False
            self._last_refresh = loop.time()
            await self._refresh()
            if not self._changes_waiting:
                return

    async def _refresh(self) -> None:
        self.refreshes += 1
        session = self._session
        if session is None:
            return
        try:
            with anyio.fail_after(self.config.startup_timeout):
                tools = await _list_tools(session)
        except Exception as exc:
            _log.warning("mcp server %s: tools/list after a change failed: %s", self.name, exc)
            return
        if self._session is session:
            same = [t.name for t in tools] == [t.name for t in self.tools]
            self.tools = tools
            if not same:
                self._on_notice(
                    f"MCP server {self.name!r} changed its tools ({len(tools)} now)", "info"
                )
            self._on_change(self)


async def _list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _describe(exc: BaseException, config: McpServerConfig) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        timeout = config.startup_timeout
        return f"did not answer initialize and tools/list within {timeout:g} s"
    if isinstance(exc, FileNotFoundError) and config.command is not None:
        return f"cannot start {config.command!r}: no such program"
    if isinstance(exc, PermissionError) and config.command is not None:
        return f"cannot start {config.command!r}: permission denied"
    if isinstance(exc, MCPError):
        if exc.code == REFUSED_CODE:
            return exc.message
        return f"the server answered with an error: {exc.message}"
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:500]
