"""The ACP agent of bench/acp_bench.py, on the official SDK (agent-client-protocol): any prompt
is answered with a given text, streamed as ``agent_message_chunk`` updates of N bytes each, one
after the other with no pause; then, when the bench signals it (SIGUSR1), one more chunk (the
probe), alone on an idle stream; then ``end_turn``.

    python3 bench/acp_flood_agent.py TEXT_FILE CHUNK_BYTES PROBE TIMES_FILE

TIMES_FILE gets the agent's process id at start, and at the end a JSON object of
``time.monotonic()`` readings (comparable across processes on Linux): ``first`` and ``last``
(the first and last chunk of the text sent), ``probe`` (the probe sent).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

from acp import (
    PROTOCOL_VERSION,
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    text_block,
    update_agent_message,
)
from acp.interfaces import Client
from acp.schema import AgentCapabilities, Implementation

PROBE_WAIT_S = 120.0


class FloodAgent(Agent):
    _conn: Client

    def __init__(self, text: str, chunk: int, probe: str, times: Path) -> None:
        self.chunks = [text[i : i + chunk] for i in range(0, len(text), chunk)]
        self.probe = probe
        self.times = times
        self.go = asyncio.Event()

    def on_connect(self, conn: Client) -> None:
        self._conn = conn
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, self.go.set)

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="flood", title="Flood Agent", version="1"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=uuid4().hex)

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        first = time.monotonic()
        for chunk in self.chunks:
            await self._conn.session_update(session_id, update_agent_message(text_block(chunk)))
        last = time.monotonic()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.go.wait(), PROBE_WAIT_S)
        probe = time.monotonic()
        await self._conn.session_update(session_id, update_agent_message(text_block(self.probe)))
        self.times.write_text(json.dumps({"first": first, "last": last, "probe": probe}))
        return PromptResponse(stop_reason="end_turn")


async def main() -> None:
    text_file, chunk, probe, times = sys.argv[1:5]
    Path(times).write_text(str(os.getpid()))
    agent = FloodAgent(Path(text_file).read_text(), int(chunk), probe, Path(times))
    await run_agent(agent)


if __name__ == "__main__":
    asyncio.run(main())
