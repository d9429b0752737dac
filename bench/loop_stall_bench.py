"""How long one long answer stops the event loop (and with it the screen and the keys).

    python3 bench/loop_stall_bench.py                # 200 KB and 1 MB answers, 3 runs each
    python3 bench/loop_stall_bench.py --kb 50 500 --reps 5

The real ``Agent.send`` (build_agent, the fake provider on loopback, a real session store)
streams an answer of N KB in 20-character Chat Completions deltas while a ticker coroutine
sleeps 2 ms at a time and notes how late it wakes. Reported: the turn's wall time and the
longest stall the ticker saw, for the agent writing its session (``session``) and for the same
turn with a recorder that writes nothing (``floor``), measured in the same run: the session's
extra stall is what writing the turn's record costs the event loop (redacting and encoding its
raw events, the fsync). Best (lowest) of the runs. The exit status is 0: it is a measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tui_agent and tests, if not installed

from tests.agent_helpers import agent_over  # noqa: E402
from tests.fake_provider import Reply  # noqa: E402
from tui_agent.agent.recorder import SessionRecorder  # noqa: E402

DELTA = "word word word word "  # 20 characters


async def one(kb: int, write: bool) -> tuple[float, float]:
    """(turn seconds, longest stall seconds) for an answer of ``kb`` KB."""
    deltas = [("text", DELTA)] * (kb * 1024 // len(DELTA))
    with tempfile.TemporaryDirectory() as folder:
        reply = Reply(deltas, stop="stop")
        async with agent_over("openai-chat", Path(folder), reply, require_tools=False) as harness:
            if not write:
                harness.agent.recorder = SessionRecorder(None)
            longest = 0.0
            done = False

            async def ticker() -> None:
                nonlocal longest
                last = time.perf_counter()
                while not done:
                    await asyncio.sleep(0.002)
                    now = time.perf_counter()
                    longest = max(longest, now - last)
                    last = now

            ticking = asyncio.ensure_future(ticker())
            start = time.perf_counter()
            await harness.send("a long answer, please")
            took = time.perf_counter() - start
            done = True
            await ticking
            return took, longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, nargs="+", default=[200, 1024])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    print("| answer | floor turn s | floor stall ms | session turn s | session stall ms |")
    print("|---|---|---|---|---|")
    for kb in args.kb:
        best: dict[bool, tuple[float, float]] = {}
        for _ in range(args.reps):
            for write in (False, True):  # interleaved: the machine's noise hits both
                took, stall = asyncio.run(one(kb, write))
                old = best.get(write)
                best[write] = (min(took, old[0]), min(stall, old[1])) if old else (took, stall)
        (ft, fs), (st, ss) = best[False], best[True]
        print(f"| {kb:,} KB | {ft:.2f} | {fs * 1e3:.0f} | {st:.2f} | {ss * 1e3:.0f} |", flush=True)


if __name__ == "__main__":
    main()
