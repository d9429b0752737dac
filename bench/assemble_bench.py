"""How much tui_agent.assemble costs over the bare minimum, and over the official SDK accumulators.

For each protocol, two generated streams (bench/assemble_streams.py): a ~1 MB text answer as
~60k deltas, and 8 parallel calls with ~20 KB of arguments each in 2-12 character fragments,
interleaved. Every contender reads the same bytes as 16 KiB chunks (bench/assemble_contenders.py):

- floor: httpx-sse decoding plus ``json.loads`` of every event, no accumulation;
- dict-of-lists: the floor plus a naive text list and one fragment list per call key;
- assemble: ``tui_agent.assemble(protocol, chunks)``;
- SDK: the official stream helper's accumulator on the same bytes, where the SDK has one.

All contenders run interleaved, ``--reps`` times (medians are reported, with ratios to the floor
of the same run; a stream that takes the floor under 50 ms is run several times per timing).
The results of the first repetition are checked against what was generated, outside the timed
window. Peak memory of assemble is measured in a separate pass with tracemalloc.

    python3 bench/assemble_bench.py            # full run: 12-25 minutes, the SDKs are slow
    python3 bench/assemble_bench.py --quick    # 20x/10x smaller streams, one repetition
    python3 bench/assemble_bench.py --profile openai-chat/calls

Exit status 0 whether or not the goals hold (it is a measurement); 1 if a contender returned a
wrong result, since then nothing it measured means anything.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import importlib.metadata
import os
import platform
import pstats
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tui_agent, if not installed

import assemble_contenders as contenders
import assemble_content as content
import assemble_streams as streams

import tui_agent

GOAL_FLOOR_RATIO = 1.2
GOAL_SDK_SPEEDUP = 10.0
GOAL_PEAK_RATIO = 2.0

Runner = Callable[[str, list[bytes]], Any]


@dataclass
class Row:
    stream: content.BenchStream
    chunks: list[bytes]
    runners: dict[str, Runner]
    sdk_label: str | None
    times: dict[str, list[float]] = field(default_factory=dict)
    peak: int = 0
    floor_peak: int = 0
    inner: int = 1  # runs per timing of the fast contenders, so that each takes 50 ms or more

    def median_ms(self, name: str) -> float:
        return statistics.median(self.times[name]) * 1000

    def ratio(self, name: str) -> float:
        return self.median_ms(name) / self.median_ms("floor")

    def best_ratio(self, name: str) -> float:
        """The same ratio between the fastest runs: less sensitive to a busy machine."""
        return min(self.times[name]) / min(self.times["floor"])

    @property
    def name(self) -> str:
        return f"{self.stream.protocol}/{self.stream.kind}"


def _rows(sizes: content.Sizes, only: str | None) -> list[Row]:
    rows = []
    for stream in streams.all_streams(sizes):
        row_name = f"{stream.protocol}/{stream.kind}"
        if only and only not in row_name:
            continue
        runners: dict[str, Runner] = {
            "floor": contenders.floor,
            "dict-of-lists": contenders.dict_of_lists,
            "assemble": contenders.assemble,
        }
        sdk = contenders.sdk_for(stream.protocol)
        if sdk is not None:
            runners["sdk"] = sdk.run
        chunks = streams.chunked(stream.body)
        row = Row(stream, chunks, runners, sdk.label if sdk else None)
        t0 = time.perf_counter()
        contenders.floor(stream.protocol, chunks)
        row.inner = max(1, min(100, int(0.05 / (time.perf_counter() - t0))))
        rows.append(row)
    return rows


class WrongResultError(Exception):
    """A contender returned something other than the generated turn: its timing means nothing."""


def _check(row: Row, name: str, got: Any) -> None:
    if name == "floor":
        return
    stream = row.stream
    if got[0] != stream.text:
        raise WrongResultError(
            f"{row.name} {name}: text of {len(got[0])} chars, not the {len(stream.text)} sent"
        )
    if got[1] != [(c.id, c.name, c.arguments) for c in stream.calls]:
        raise WrongResultError(f"{row.name} {name}: its {len(got[1])} calls differ from those sent")


def _time(rows: list[Row], reps: int) -> None:
    """Every contender on every stream, interleaved; the order of contenders rotates per rep.

    The results of the first repetition are checked, outside the timed window.
    """
    for rep in range(reps):
        started = time.perf_counter()
        for row in rows:
            names = list(row.runners)
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                run = row.runners[name]
                gc.collect()
                t0 = time.perf_counter()
                inner = 1 if name == "sdk" else row.inner
                for _ in range(inner):
                    got = run(row.stream.protocol, row.chunks)
                row.times.setdefault(name, []).append((time.perf_counter() - t0) / inner)
                if rep == 0:
                    _check(row, name, got)
                del got
        took = time.perf_counter() - started
        print(f"  repetition {rep + 1}/{reps} took {took:.1f} s", file=sys.stderr, flush=True)


def _peak(run: Runner, protocol: str, chunks: list[bytes]) -> int:
    """Peak bytes allocated while ``run`` runs, its result included."""
    gc.collect()
    tracemalloc.start()
    try:
        result = run(protocol, chunks)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _header(sizes: content.Sizes, reps: int) -> list[str]:
    packages = ("openai", "anthropic", "httpx", "httpx-sse", "orjson")
    versions = ", ".join(f"{p} {_version(p)}" for p in packages)
    return [
        f"Date: {datetime.date.today().isoformat()}",
        f"Machine: {_cpu_model()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.machine()}, Python {platform.python_version()}",
        f"Packages: {versions}",
        f"Streams: text {sizes.text_chars:,} chars as ~{sizes.text_deltas:,} deltas; "
        f"{sizes.call_count} calls x ~{sizes.args_chars:,} chars of arguments in 2-12 char "
        f"fragments; read as 16 KiB chunks. Median of {reps} interleaved run(s).",
    ]


def _cell(ms: float, ratio: float) -> str:
    return f"{ms:,.1f} ({ratio:.2f}x)"


def _table(rows: list[Row]) -> list[str]:
    head = (
        "| protocol | stream | MB | events | floor ms | assemble ms (x floor) "
        "| dict-of-lists ms (x floor) | SDK ms (x floor) | assemble vs SDK "
        "| assemble peak MB (x stream) | floor peak (x stream) |"
    )
    lines = [head, "|" + "---|" * 11]
    for row in rows:
        stream = row.stream
        size = len(stream.body)
        sdk = speedup = "-"
        if "sdk" in row.times:
            sdk = _cell(row.median_ms("sdk"), row.ratio("sdk"))
            speedup = f"{row.median_ms('sdk') / row.median_ms('assemble'):.0f}x faster"
        kind = stream.kind if stream.fragments or stream.kind == "text" else "calls (whole args)"
        lines.append(
            f"| {stream.protocol} | {kind} | {size / 1e6:.2f} | {stream.events:,} "
            f"| {row.median_ms('floor'):,.1f} "
            f"| {_cell(row.median_ms('assemble'), row.ratio('assemble'))} "
            f"| {_cell(row.median_ms('dict-of-lists'), row.ratio('dict-of-lists'))} "
            f"| {sdk} | {speedup} | {row.peak / 1e6:.2f} ({row.peak / size:.2f}x) "
            f"| {row.floor_peak / size:.2f}x |"
        )
    return lines


def _notes(rows: list[Row]) -> list[str]:
    labels = {row.stream.protocol: row.sdk_label for row in rows}
    notes = [
        f"SDK for {p}: {label or 'none (no official accumulator)'}" for p, label in labels.items()
    ]
    notes += [
        "gemini calls: generateContent has no argument fragments; the 8 calls arrive as whole "
        "args objects in 4 chunks.",
        "anthropic and gemini-interactions calls: real servers stream one block/step at a time; "
        "these streams interleave the 8 by index, which both protocols key on.",
        "openai-responses: the .done events, output_item.done and response.completed repeat the "
        "whole text or every call in full, as real responses do (counted in MB).",
    ]
    return notes


def _goals(rows: list[Row]) -> list[str]:
    lines = []
    worst = max(rows, key=lambda r: r.ratio("assemble"))
    over = [
        f"{r.name} {r.ratio('assemble'):.2f}x (fastest runs {r.best_ratio('assemble'):.2f}x)"
        for r in rows
        if r.ratio("assemble") > GOAL_FLOOR_RATIO
    ]
    verdict = "HOLDS" if not over else "MISSED: " + ", ".join(over)
    lines.append(
        f"assemble <= {GOAL_FLOOR_RATIO}x floor: {verdict} "
        f"(worst {worst.name} {worst.ratio('assemble'):.2f}x)"
    )
    with_sdk = [r for r in rows if "sdk" in r.times]
    if with_sdk:
        speedups = {r.name: r.median_ms("sdk") / r.median_ms("assemble") for r in with_sdk}
        slow = [f"{n} {s:.1f}x" for n, s in speedups.items() if s < GOAL_SDK_SPEEDUP]
        least = min(speedups, key=speedups.__getitem__)
        verdict = "HOLDS" if not slow else "MISSED: " + ", ".join(slow)
        lines.append(
            f"assemble >= {GOAL_SDK_SPEEDUP:.0f}x faster than every SDK accumulator: {verdict} "
            f"(least {least} {speedups[least]:.1f}x)"
        )
    else:
        lines.append("assemble vs SDK accumulators: not measured (SDKs not installed)")
    ratios = {r.name: r.peak / len(r.stream.body) for r in rows}
    big = [f"{n} {x:.2f}x" for n, x in ratios.items() if x > GOAL_PEAK_RATIO]
    most = max(ratios, key=ratios.__getitem__)
    verdict = "HOLDS" if not big else "MISSED: " + ", ".join(big)
    lines.append(
        f"assemble peak memory <= {GOAL_PEAK_RATIO:.0f}x stream size: {verdict} "
        f"(largest {most} {ratios[most]:.2f}x)"
    )
    return lines


def _profile(rows: list[Row], top: int) -> None:
    for row in rows:
        print(f"\ncProfile of assemble on {row.name} ({len(row.stream.body) / 1e6:.2f} MB):")
        profiler = cProfile.Profile()
        profiler.enable()
        tui_agent.assemble(row.stream.protocol, iter(row.chunks))
        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
        stats.sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller streams, 1 repetition")
    parser.add_argument("--reps", type=int, help="repetitions (default 5, or 1 with --quick)")
    parser.add_argument("--only", help="run only streams whose protocol/kind contains this")
    parser.add_argument("--profile", metavar="PROTOCOL/KIND", help="cProfile assemble, no timing")
    args = parser.parse_args(argv)
    sizes = content.QUICK if args.quick else content.FULL
    reps = args.reps or (1 if args.quick else 5)

    contenders.warm_up()
    print("Generating streams...", file=sys.stderr, flush=True)
    rows = _rows(sizes, args.profile or args.only)
    if not rows:
        print("no stream matches", file=sys.stderr)
        return 1
    if args.profile:
        _profile(rows, 30)
        return 0

    print(f"Timing {reps} repetition(s)...", file=sys.stderr, flush=True)
    try:
        _time(rows, reps)
    except Exception as exc:  # a wrong result, or a contender that raised
        print(f"Nothing measured: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    for row in rows:
        row.peak = _peak(contenders.assemble, row.stream.protocol, row.chunks)
        row.floor_peak = _peak(contenders.floor, row.stream.protocol, row.chunks)

    print("\n".join(_header(sizes, reps)), end="\n\n")
    print("\n".join(_table(rows)), end="\n\n")
    print("\n".join(f"- {note}" for note in _notes(rows)), end="\n\n")
    print("Goals:")
    print("\n".join(f"- {line}" for line in _goals(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
