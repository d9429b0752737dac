"""Run in a child process: stream turns from the fake provider and report the peak memory the
client allocated for each, so the server thread's own buffers are not counted.

    python -m tests.hostile.stream_memory '[{"protocol": P, "base_url": U, "limit": N}, ...]'

prints one JSON list: per job, the turn as ``to_dict()`` and ``peak`` (bytes, tracemalloc).
A ``limit`` of null keeps the default.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tracemalloc
from typing import Any

import httpx

from tui_agent.conversation import UserMessage
from tui_agent.providers import RequestSettings, request_builder
from tui_agent.transport import StreamLimits, stream_turn


async def _run(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    async with httpx.AsyncClient() as client:
        for job in jobs:
            protocol = job["protocol"]
            settings = RequestSettings(model="m", base_url=job["base_url"])
            request = request_builder(protocol)([UserMessage("hi")], [], settings)
            limits = (
                StreamLimits()
                if job["limit"] is None
                else StreamLimits(max_event_bytes=job["limit"])
            )
            tracemalloc.start()
            result = await stream_turn(
                client,
                request,
                protocol,
                protocol,
                limits=limits,
                on_progress=lambda _: None,
                on_retry=lambda _: None,
                record=lambda *_: None,
            )
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            out.append({"turn": result.to_dict(), "peak": peak})
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_run(json.loads(sys.argv[1])))))
