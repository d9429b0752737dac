"""Memory and time of one turn of many tiny events, through the real agent, against a floor.

    python3 bench/turn_memory_bench.py                 # 10k, 100k, 1M events (~2 minutes)
    python3 bench/turn_memory_bench.py --events 20000 200000
    python3 bench/turn_memory_bench.py --settings max_turn_events=2000000 max_turn_bytes=400000000

Each case runs in a fresh child process. The body is a Chat Completions stream of N tiny text
chunks (about 150 bytes each, one or two characters of text), cut into 16 KiB reads and served
by an in-process httpx transport, so no socket or server thread is measured.

- ``agent``: the real ``Agent.send`` (build_agent, stream_turn, the decoder, the assembler, the
  raw events kept for the history and the session, the session writer on a temporary folder),
  with the [settings] given (the defaults otherwise).
- ``floor``: the least a client that keeps the raw events can do: httpx-sse over the same reads,
  each event's data kept in a list.

Reported per case: the turn's outcome, what was kept (raw event data plus text, in MB), the
session line written, the peak of Python allocations (tracemalloc, from the request to the
session file closed, after one 1-event turn in the same process so imports and first-use set-up
are not counted) and the wall time (a second run without tracemalloc), and the ratios: peak /
kept, and agent / floor for peak and time, both measured in the same run on the same bytes.
The exit status is 0: it is a measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
READ = 16 * 1024


def body(events: int) -> bytes:
    """``events`` tiny Chat Completions chunks (about 150 bytes each), a stop chunk, [DONE]."""
    head = '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"m",'
    out = []
    for i in range(events):
        text = "ab"[i % 2]
        delta = f'{{"content":"{text}"}}'
        chunk = f'{head}"choices":[{{"index":0,"delta":{delta},"finish_reason":null}}]}}'
        out.append(f"data: {chunk}\n\n")
    out.append(f'data: {head}"choices":[{{"index":0,"delta":{{}},"finish_reason":"stop"}}]}}\n\n')
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


class _Body(httpx.AsyncByteStream):
    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        view = memoryview(self.data)
        for at in range(0, len(self.data), READ):
            yield bytes(view[at : at + READ])


def _client(data: bytes) -> httpx.AsyncClient:
    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, stream=_Body(data))

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


async def _agent(data: bytes, settings: dict[str, Any], folder: Path) -> dict[str, Any]:
    from tui_agent.agent.events import LoopEnded, TurnTruncated
    from tui_agent.approval import ApprovalPolicy
    from tui_agent.approval.approver import HeadlessApprover
    from tui_agent.config import Config, ResolvedProfile, Settings
    from tui_agent.conversation import AssistantMessage
    from tui_agent.session import SessionStore
    from tui_agent.wiring.setup import build_agent

    store = SessionStore(folder)
    writer = store.create(profile="bench", protocol="openai-chat", model="m", workspace="ws")
    profile = ResolvedProfile(
        name="bench",
        protocol="openai-chat",
        model="m",
        base_url="http://bench.invalid/v1",
        api_key="bench-key",
        api_key_env=None,
        options={},
        stateful=False,
        max_tokens=1024,
        system_prompt="",
    )
    outcome, reason = "", ""
    async with _client(data) as client:
        agent = build_agent(
            profile=profile,
            config=Config(settings=Settings(**settings)),
            workspace=folder,
            protected=(),
            client=client,
            approver=HeadlessApprover("never"),
            policy=ApprovalPolicy(),
            writer=writer,
        )
        async for event in agent.send("hi"):
            if isinstance(event, LoopEnded):
                outcome = event.outcome
            if isinstance(event, TurnTruncated):
                reason = event.message
    kept = sum(
        len(m.text) + sum(len(name) + len(raw) for name, raw in m.raw)
        for m in agent.messages
        if isinstance(m, AssistantMessage)
    )
    writer.close()
    # The turn is over: its peak, before this bench reads the session file back.
    peak = tracemalloc.get_traced_memory()[1] if tracemalloc.is_tracing() else 0
    line = max(len(x) for x in (folder / f"{writer.session_id}.jsonl").read_bytes().split(b"\n"))
    if not kept:  # a truncated turn keeps nothing in the conversation; its record holds the raw
        record = json.loads(
            max((folder / f"{writer.session_id}.jsonl").read_bytes().split(b"\n"), key=len)
        )
        kept = sum(len(e["event"]) + len(e["data"]) for e in record.get("raw", []))
        kept += len(record.get("text", ""))
    return {"outcome": outcome, "reason": reason, "kept": kept, "line": line, "peak": peak}


async def _floor(data: bytes) -> dict[str, Any]:
    import httpx_sse

    kept: list[str] = []
    async with _client(data) as client, httpx_sse.aconnect_sse(client, "POST", "http://x/") as src:
        async for sse in src.aiter_sse():
            kept.append(sse.data)
    return {"outcome": "complete", "reason": "", "kept": sum(map(len, kept)), "line": 0}


def child(mode: str, events: int, settings: dict[str, Any], traced: bool) -> dict[str, Any]:
    data = body(events)
    if mode == "agent":  # imports and first-use set-up are paid once per process, not per turn
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(_agent(body(1), settings, Path(tmp)))
    with tempfile.TemporaryDirectory() as tmp:
        if traced:
            tracemalloc.start()
        began = time.perf_counter()
        if mode == "agent":
            out = asyncio.run(_agent(data, settings, Path(tmp)))
        else:
            out = asyncio.run(_floor(data))
        out["seconds"] = time.perf_counter() - began
        out.setdefault("peak", tracemalloc.get_traced_memory()[1] if traced else 0)
    out["body"] = len(data)
    return out


def _measure(mode: str, events: int, settings: dict[str, Any]) -> dict[str, Any]:
    def run(traced: bool) -> dict[str, Any]:
        job = json.dumps([mode, events, settings, traced])
        done = subprocess.run(
            [sys.executable, __file__, "--child", job],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    traced = run(True)
    traced["seconds"] = run(False)["seconds"]
    return traced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--settings", nargs="*", default=[], help="name=value for [settings]")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, events, settings, traced = json.loads(args.child)
        print(json.dumps(child(mode, events, settings, traced)))
        return 0
    settings = {k: int(v) for k, v in (item.split("=", 1) for item in args.settings)}
    mb = 1 / 2**20
    print(f"settings: {settings or 'defaults'}")
    print(
        "| events | body MB | outcome | kept MB | session line MB | peak MB | peak / kept "
        "| floor peak MB | peak / floor | time s | time / floor |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for events in args.events:
        agent = _measure("agent", events, settings)
        floor = _measure("floor", events, settings)
        kept = max(agent["kept"], 1)
        print(
            f"| {events:,} | {agent['body'] * mb:.1f} | {agent['outcome']} "
            f"| {agent['kept'] * mb:.1f} | {agent['line'] * mb:.1f} | {agent['peak'] * mb:.0f} "
            f"| {agent['peak'] / kept:.1f} | {floor['peak'] * mb:.0f} "
            f"| {agent['peak'] / max(floor['peak'], 1):.2f} | {agent['seconds']:.2f} "
            f"| {agent['seconds'] / max(floor['seconds'], 1e-9):.2f} |",
            flush=True,
        )
        if agent["reason"]:
            print(f"  ({agent['reason']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
