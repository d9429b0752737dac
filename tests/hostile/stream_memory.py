"""Run in a child process: stream turns from the fake provider and report the peak memory the
client allocated for each, so the server thread's own buffers are not counted.

    python -m tests.hostile.stream_memory '[{"protocol": P, "base_url": U, "limit": N}, ...]'

prints one JSON list: per job, the turn as ``to_dict()`` and ``peak`` (bytes, tracemalloc).
A ``limit`` (max_event_bytes) of null or missing keeps the default; ``max_turn_events`` and
``max_turn_bytes``, when given, bound the whole turn. ``measure(jobs)`` runs it from a test.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
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
                if job.get("limit") is None
                else StreamLimits(max_event_bytes=job["limit"])
            )
            turn = {k: job[k] for k in ("max_turn_events", "max_turn_bytes") if k in job}
            limits = dataclasses.replace(limits, **turn)
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


def measure(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run the jobs in a child process (this checkout); one result per job."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.hostile.stream_memory", json.dumps(jobs)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_run(json.loads(sys.argv[1])))))
