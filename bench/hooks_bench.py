"""What hooks add to a tool call, as the loop pays it.

    python3 bench/hooks_bench.py [--runs 20]

One PreToolUse moment (``SessionHooks.run``: the JSON payload, the spawn, stdin, the capped
stdout and stderr, the verdict) with 0, 1 and 5 matching hooks, each the program ``true`` (the
floor: any real hook adds its own run time), in the command sandbox and unconfined, alternated
``--runs`` times in this one process. It reports the median wall time of the moment and what it
adds over the same ``true`` spawned bare with asyncio in the same run. Five hooks of one moment
run concurrently, so on two cores they cost about two and a half single ones, not five.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from tui_agent.hooks import DeclaredHook, HookConfig, HookEvent, HookPlace, SessionHooks

PAYLOAD = {"tool_name": "write_file", "tool_input": {"path": "a.txt", "content": "x"}}


async def _bare(program: str) -> None:
    proc = await asyncio.create_subprocess_exec(program, start_new_session=True)
    await proc.wait()


def _hooks(count: int, unconfined: bool, place: HookPlace, program: str) -> SessionHooks:
    config = HookConfig(event=HookEvent.PRE_TOOL_USE, command=[program], unconfined=unconfined)
    return SessionHooks([DeclaredHook(config)] * count, place, "bench")


async def main(runs: int) -> None:
    program = shutil.which("true") or "/bin/true"
    with tempfile.TemporaryDirectory() as folder:
        place = HookPlace(workspace=Path(folder))
        cases = {
            f"{count} hook{'s' if count != 1 else ''}, {how}": _hooks(
                count, how == "unconfined", place, program
            )
            for count in (0, 1, 5)
            for how in ("sandboxed", "unconfined")
            if count or how == "sandboxed"
        }
        times: dict[str, list[float]] = {"bare true": [], **{name: [] for name in cases}}
        for _ in range(runs):
            began = time.perf_counter()
            await _bare(program)
            times["bare true"].append(time.perf_counter() - began)
            for name, hooks in cases.items():
                began = time.perf_counter()
                outcomes = await hooks.run(HookEvent.PRE_TOOL_USE, PAYLOAD, "write_file")
                times[name].append(time.perf_counter() - began)
                assert all(o.verdict == "ok" for o in outcomes), outcomes
    floor = statistics.median(times["bare true"])
    print(f"{'case':<24} {'median':>10} {'added':>10}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<24} {median * 1000:>8.1f} ms {(median - floor) * 1000:>+8.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    asyncio.run(main(parser.parse_args().runs))
