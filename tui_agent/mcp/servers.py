"""Every configured MCP server of a session: started in the background, their tools named and
adapted, their changes and failures told to whoever listens, and all of them stopped at the end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..tools.spec import ToolSpec
from .adapter import tool_spec
from .config import McpServerConfig
from .connection import McpConnection
from .naming import name_tools
from .schema import BadToolSchema

Level = Literal["info", "warning", "error"]
MAX_HISTORY = 200


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

    def __init__(self, configs: Mapping[str, McpServerConfig], workspace: Path) -> None:
        self.workspace = workspace
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
        connection = McpConnection(name, config, self.workspace, self._changed, self._notice)
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

    async def restart(self, name: str | None = None) -> None:
        """Restart one server (or all, when ``name`` is None); their tools follow."""
        chosen = [c for n, c in self.connections.items() if name is None or n == name]
        await asyncio.gather(*(c.restart() for c in chosen))

    async def stop(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.connections.values()))

    def secrets(self) -> list[str]:
        return [secret for c in self.connections.values() for secret in c.secrets]

    # -- what the model is offered ---------------------------------------------------------

    def tool_specs(self) -> list[ToolSpec]:
        """The tools of the ready servers, as the model sees them; problems become notices."""
        ready = [c for c in self.connections.values() if c.status == "ready"]
        by_key = {
            (c.name, t.name): (c, t) for c in ready for t in c.tools if c.config.allows(t.name)
        }
        named, clashes = name_tools(by_key, self.taken)
        problems = [f"MCP tools not offered: {clash.describe()}" for clash in clashes]
        specs: list[ToolSpec] = []
        for item in named:
            connection, tool = by_key[(item.server, item.tool)]
            try:
                specs.append(tool_spec(item, tool, connection.config, connection.call))
            except BadToolSchema as exc:
                problems.append(
                    f"MCP server {item.server!r} tool {item.tool!r} is not offered: {exc}"
                )
        for problem in problems:
            if problem not in self._reported:
                self._reported.add(problem)
                self._notice(problem, "warning")
        return specs

    def statuses(self) -> list[ServerStatus]:
        risks = {spec.name: str(spec.risk) for spec in self.tool_specs()}
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
        self._emit(McpEvent("changed"))

    def _notice(self, text: str, level: str) -> None:
        self._emit(McpEvent("notice", text, "warning" if level == "warning" else "info"))

    def _emit(self, event: McpEvent) -> None:
        if event.kind == "notice" and len(self.history) < MAX_HISTORY:
            self.history.append(event)
        for listener in list(self._listeners):
            listener(event)


def names_of(specs: Iterable[ToolSpec]) -> frozenset[str]:
    return frozenset(spec.name for spec in specs)
