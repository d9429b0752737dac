"""Drive `tui-agent acp` as a subprocess with the ACP SDK's own client side.

``async with acp_agent(home, server) as agent:`` starts the command in ``home`` (run_helpers'
isolated user) against the fake provider, initializes, and gives an ``Agent`` with the SDK's
``ClientSideConnection`` (``agent.conn``) and a ``Recorder`` client that keeps every session
update and answers each permission request with what its ``answers`` say (option ids, or
"cancelled"); the agent's stderr is kept in a file (``agent.stderr()``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.core import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    InitializeResponse,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallUpdate,
)

from .fake_provider import FakeProvider
from .run_helpers import KEY_ENV, MODEL, Home

START_TIMEOUT_S = 30.0


@dataclass
class Recorder:
    """The client: every update as it came, and the permission requests it was asked."""

    answers: list[str] = field(default_factory=list)  # taken in order; "cancelled" cancels
    updates: list[Any] = field(default_factory=list)
    asked: list[tuple[ToolCallUpdate, list[PermissionOption]]] = field(default_factory=list)
    asking: asyncio.Event = field(default_factory=asyncio.Event)
    hold: asyncio.Event | None = None  # set: the answer waits for it
    _updated: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **_: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        self.asking.set()
        if self.hold is not None:
            await self.hold.wait()
        answer = self.answers.pop(0) if self.answers else "cancelled"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)
        self._updated.set()

    async def seen(self, kind: str, timeout: float = START_TIMEOUT_S) -> Any:
        """The first update of ``kind`` (``tool_call``...), once it came."""
        return await self._first(lambda u: u.session_update == kind, timeout)

    async def seen_status(self, call_id: str, status: str, timeout: float = START_TIMEOUT_S) -> Any:
        """The first update that gives the call ``status``, once it came."""

        def wanted(update: Any) -> bool:
            return getattr(update, "tool_call_id", None) == call_id and update.status == status

        return await self._first(wanted, timeout)

    async def _first(self, wanted: Any, timeout: float) -> Any:
        async def first() -> Any:
            while True:
                found = [u for u in self.updates if wanted(u)]
                if found:
                    return found[0]
                self._updated.clear()
                await self._updated.wait()

        return await asyncio.wait_for(first(), timeout)

    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.updates if u.session_update == kind)

    def of_call(self, call_id: str) -> list[Any]:
        return [u for u in self.updates if getattr(u, "tool_call_id", None) == call_id]


@dataclass
class Agent:
    conn: ClientSideConnection
    client: Recorder
    init: InitializeResponse
    stderr_path: Path
    process: asyncio.subprocess.Process

    async def new_session(self, cwd: Path) -> str:
        return (await self.conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id

    async def prompt(self, session_id: str, text: str) -> Any:
        block = TextContentBlock(type="text", text=text)
        return await asyncio.wait_for(
            self.conn.prompt(session_id=session_id, prompt=[block]), START_TIMEOUT_S
        )

    def stderr(self) -> str:
        return self.stderr_path.read_text("utf-8", "replace")


def argv(server: FakeProvider, *extra: str) -> list[str]:
    return [
        "-m",
        "tui_agent.cli",
        "acp",
        "--protocol",
        server.protocol,
        "--model",
        MODEL,
        "--base-url",
        server.base_url,
        "--api-key-env",
        KEY_ENV,
        *extra,
    ]


@contextlib.asynccontextmanager
async def acp_agent(
    home: Home, server: FakeProvider, *extra: str, client: Recorder | None = None
) -> AsyncIterator[Agent]:
    recorder = client or Recorder()
    stderr_path = home.root / "acp-stderr.txt"
    with stderr_path.open("wb") as stderr:
        async with spawn_agent_process(
            recorder,
            sys.executable,
            *argv(server, *extra),
            env=home.env(),
            cwd=home.workspace,
            transport_kwargs={"stderr": stderr.fileno()},
        ) as (conn, process):
            init = await asyncio.wait_for(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=ClientCapabilities(),
                    client_info=Implementation(name="tests", version="1"),
                ),
                START_TIMEOUT_S,
            )
            yield Agent(conn, recorder, init, stderr_path, process)
