"""Every configured MCP server of a session: started in the background, their tools named and
adapted, their changes and failures told to whoever listens, and all of them stopped at the end.

Adapting a tool (checking its schema, inlining its references) costs milliseconds, so it is done
in a worker thread, once per tool the server listed, and only for the tools a request can carry
(``max_tools`` across servers, mcp/limits.py): 5,000 tools froze the screen for 20 s on the
event loop and put 1.8 MB of tools in every request. A ``changed`` event is sent once the tools
it announces are ready.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..tools.spec import ToolSpec
from .adapter import tool_spec
from .config import McpServerConfig
from .connection import McpConnection
from .limits import McpLimits
from .naming import NamedTool, name_tools
from .schema import BadToolSchema

Level = Literal["info", "warning", "error"]
MAX_HISTORY = 200
Adapted = tuple[Any, "ToolSpec | str"]  # the server's tool, and its spec or why it is not offered


@dataclass(frozen=True)
class McpEvent:
    """``changed``: statuses or tools changed (rebuild what the model is offered); ``notice``:
    ``text`` is for the person."""

    kind: Literal["changed", "notice"]
    text: str = ""
    level: Level = "info"


@dataclass(frozen=True)
class ToolStatus:
    name: str  # as the model sees it
    risk: str


@dataclass(frozen=True)
class ServerStatus:
    name: str
    transport: str
    status: str
    tools: tuple[ToolStatus, ...]
    error: str | None


class McpServers:
    """The servers of one app or run. Call ``start()`` on the event loop, ``stop()`` at the end."""

    def __init__(
        self,
        configs: Mapping[str, McpServerConfig],
        workspace: Path,
        limits: McpLimits | None = None,
    ) -> None:
        self.workspace = workspace
        self.limits = limits or McpLimits()
        self.specs: list[ToolSpec] = []  # what the model is offered now (see tool_specs)
        self._adapted: dict[tuple[str, str, int], Adapted] = {}  # kept with the tool: no id reuse
        self._adapting: asyncio.Task[None] | None = None
        self._again = False
        self.connections: dict[str, McpConnection] = {}
        self._listeners: list[Callable[[McpEvent], None]] = []
        self.history: list[McpEvent] = []  # the notices so far, for a listener that comes late
        self._reported: set[str] = set()
        self.taken: frozenset[str] = frozenset()  # names of the built-in and user tools
        for name, config in configs.items():
            self.add(name, config, start=False)

    def listen(self, listener: Callable[[McpEvent], None], *, replay: bool = False) -> None:
        """Call ``listener`` on every event from now on (after the past notices, if ``replay``)."""
        self._listeners.append(listener)
        if replay:
            for event in list(self.history):
                listener(event)

    def unlisten(self, listener: Callable[[McpEvent], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def add(self, name: str, config: McpServerConfig, *, start: bool = True) -> None:
        """One more server (a workspace's, once trusted); started now when ``start``."""
        connection = McpConnection(
            name, config, self.workspace, self._changed, self._notice, self.limits
        )
        self.connections[name] = connection
        if start:
            connection.start()

    def start(self) -> None:
        for connection in self.connections.values():
            connection.start()

    async def wait_ready(self) -> None:
        """Until every enabled server is ready or failed (each bounded by its startup_timeout)."""
        waits = [
            asyncio.wait_for(c.settled.wait(), c.config.startup_timeout + 5.0)
            for c in self.connections.values()
        ]
        await asyncio.gather(*waits, return_exceptions=True)
        await self.tools_settled()

    async def tools_settled(self) -> None:
        """Until the tools of the latest change are adapted (``specs`` is current)."""
        while self._adapting is not None and not self._adapting.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._adapting)

    async def restart(self, name: str | None = None) -> None:
        """Restart one server (or all, when ``name`` is None); their tools follow."""
        chosen = [c for n, c in self.connections.items() if name is None or n == name]
        await asyncio.gather(*(c.restart() for c in chosen))

    async def stop(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.connections.values()))
        if self._adapting is not None and not self._adapting.done():
            self._adapting.cancel()

    def secrets(self) -> list[str]:
        return [secret for c in self.connections.values() for secret in c.secrets]

    # -- what the model is offered ---------------------------------------------------------

    def tool_specs(self) -> list[ToolSpec]:
        """The tools of the ready servers, as the model sees them (adapted by the latest change;
        ``tools_settled`` waits for it)."""
        return list(self.specs)

    def _plan(self) -> tuple[list[tuple[NamedTool, Any, McpConnection]], list[str]]:
        """The tools a request may carry, in config order, and what keeps the others out."""
        ready = [c for c in self.connections.values() if c.status == "ready"]
        by_key = {
            (c.name, t.name): (c, t) for c in ready for t in c.tools if c.config.allows(t.name)
        }
        named, clashes = name_tools(by_key, self.taken)
        problems = [f"MCP tools not offered: {clash.describe()}" for clash in clashes]
        cap = self.limits.max_tools
        if len(named) > cap:
            problems.append(
                f"MCP: {len(named) - cap:,} of {len(named):,} tools not offered: a request carries "
                f"at most {cap} (setting mcp_max_tools); the first {cap} in config order are"
            )
            named = named[:cap]
        chosen = [(item, *by_key[(item.server, item.tool)]) for item in named]
        return [(item, tool, connection) for item, connection, tool in chosen], problems

    def _key(self, item: NamedTool, tool: Any) -> tuple[str, str, int]:
        return (item.server, item.name, id(tool))

    async def _adapt(self) -> None:
        while True:
            self._again = False
            plan, problems = self._plan()
            todo = [entry for entry in plan if self._key(entry[0], entry[1]) not in self._adapted]
            if todo:
                done = await asyncio.to_thread(_adapt_all, todo)
                self._adapted.update(done)
            if self._again:
                continue
            current = {self._key(item, tool) for item, tool, _ in plan}
            self._adapted = {k: v for k, v in self._adapted.items() if k in current}
            specs: list[ToolSpec] = []
            for item, tool, _ in plan:
                adapted = self._adapted[self._key(item, tool)][1]
                if isinstance(adapted, str):
                    problems.append(adapted)
                else:
                    specs.append(adapted)
            self.specs = specs
            for problem in problems:
                if problem not in self._reported:
                    self._reported.add(problem)
                    self._notice(problem, "warning")
            self._emit(McpEvent("changed"))
            return

    def statuses(self) -> list[ServerStatus]:
        risks = {spec.name: str(spec.risk) for spec in self.specs}
        shown: list[ServerStatus] = []
        for connection in self.connections.values():
            named, _ = name_tools((connection.name, t.name) for t in connection.tools)
            tools = tuple(ToolStatus(n.name, risks[n.name]) for n in named if n.name in risks)
            shown.append(
                ServerStatus(
                    connection.name,
                    connection.config.transport,
                    connection.status,
                    tools,
                    connection.error,
                )
            )
        return shown

    def summary(self) -> str:
        """``MCP 2/3 ready`` (servers that are enabled), or "" when there are none."""
        enabled = [c for c in self.connections.values() if c.config.enabled]
        if not enabled:
            return ""
        ready = sum(c.status == "ready" for c in enabled)
        starting = sum(c.status == "starting" for c in enabled)
        more = f", {starting} starting" if starting else ""
        return f"MCP {ready}/{len(enabled)} ready{more}"

    def starting(self) -> list[str]:
        """The enabled servers still starting: their tools are not offered yet."""
        return [
            c.name for c in self.connections.values() if c.config.enabled and c.status == "starting"
        ]

    # -- events ---------------------------------------------------------------------------

    def _changed(self, _connection: McpConnection) -> None:
        """Statuses or tools changed: adapt (in the background) what the model is offered."""
        if self._adapting is not None and not self._adapting.done():
            self._again = True
            return
        self._adapting = asyncio.get_running_loop().create_task(self._adapt())

    def _notice(self, text: str, level: str) -> None:
        self._emit(McpEvent("notice", text, "warning" if level == "warning" else "info"))

    def _emit(self, event: McpEvent) -> None:
        if event.kind == "notice" and len(self.history) < MAX_HISTORY:
            self.history.append(event)
        for listener in list(self._listeners):
            listener(event)


def _adapt_all(
    todo: list[tuple[NamedTool, Any, McpConnection]],
) -> dict[tuple[str, str, int], Adapted]:
    """In a worker thread: each tool's spec, or why it is not offered (with the tool)."""
    done: dict[tuple[str, str, int], Adapted] = {}
    for item, tool, connection in todo:
        key = (item.server, item.name, id(tool))
        try:
            done[key] = (tool, tool_spec(item, tool, connection.config, connection.call))
        except BadToolSchema as exc:
            why = f"MCP server {item.server!r} tool {item.tool!r} is not offered: {exc}"
            done[key] = (tool, why)
        except (RecursionError, MemoryError, ValueError, TypeError) as exc:  # a hostile schema
            name = type(exc).__name__
            why = f"MCP server {item.server!r} tool {item.tool!r} is not offered: {name}"
            done[key] = (tool, why)
    return done


def names_of(specs: Iterable[ToolSpec]) -> frozenset[str]:
    return frozenset(spec.name for spec in specs)
