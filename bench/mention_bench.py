"""How fast @mention completion answers on a large workspace, against a baseline in the same run.

    python3 bench/mention_bench.py [--files 100000] [--queries 200]

A tree of ``--files`` empty files (nested folders with realistic names, a .gitignore that
hides a tenth of them) is built in a temporary folder and made a git work tree. The index is
built once, as the app does in the background (``FileIndex``: ``git ls-files``, then again with
the .gitignore walk used outside git), and each query of a fixed mix (1-12 characters: file
names, folder names, fuzzy abbreviations, misses) is timed through ``PathSearch.search``
(ranked, top 50). The baseline is a plain substring scan over the same list, in Python
(``[p for p in paths if q in p.lower()]``, no ranking), timed on the same queries. Reported: the
build times, query latency p50/p95/max, and the ratio of each to the baseline's.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tui_agent.prompting.file_index import PathSearch, list_files
from tui_agent.prompting.gitignore import walk_files

WORDS = [
    "src",
    "lib",
    "core",
    "util",
    "api",
    "model",
    "view",
    "widget",
    "screen",
    "agent",
    "tool",
    "session",
    "store",
    "config",
    "test",
    "bench",
    "docs",
    "parser",
    "render",
    "stream",
    "event",
    "index",
    "cache",
    "client",
    "server",
    "http",
    "json",
    "proto",
]


def make_tree(root: Path, files: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    ws = root / "ws"
    ws.mkdir()
    (ws / ".gitignore").write_text("build/\n*.tmp\n")
    made = 0
    while made < files:
        depth = rng.randint(1, 5)
        parts = [
            rng.choice(WORDS) + (str(rng.randint(0, 9)) if rng.random() < 0.3 else "")
            for _ in range(depth)
        ]
        if rng.random() < 0.05:
            parts[0] = "build"
        folder = ws.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(rng.randint(5, 40)):
            name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}{made}"
            suffix = ".tmp" if rng.random() < 0.05 else rng.choice((".py", ".md", ".json", ".ts"))
            (folder / (name + suffix)).touch()
            made += 1
            if made >= files:
                break
    return ws


def queries(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    found: list[str] = []
    for n in range(count):
        kind = n % 5
        if kind == 0:
            found.append(rng.choice(WORDS)[: rng.randint(1, 4)])  # a short start
        elif kind == 1:
            found.append(f"{rng.choice(WORDS)}_{rng.choice(WORDS)}")  # a file name part
        elif kind == 2:
            found.append(f"{rng.choice(WORDS)}/{rng.choice(WORDS)[:3]}")  # folder/name
        elif kind == 3:
            word = rng.choice(WORDS) + rng.choice(WORDS)
            found.append("".join(c for i, c in enumerate(word) if i % 2 == 0))  # fuzzy
        else:
            found.append("zqxj" + rng.choice(WORDS))  # a miss: the whole list is scanned
    return found


def timed(fn: object, qs: list[str]) -> list[float]:
    out: list[float] = []
    for q in qs:
        start = time.perf_counter()
        fn(q)  # type: ignore[operator]
        out.append((time.perf_counter() - start) * 1000)
    return out


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        start = time.perf_counter()
        ws = make_tree(Path(temp), args.files)
        print(f"tree: {args.files:,} files made in {time.perf_counter() - start:.1f} s")
        subprocess.run(["git", "init", "-q", str(ws)], check=True)
        start = time.perf_counter()
        paths = list_files(ws)
        git_s = time.perf_counter() - start
        start = time.perf_counter()
        walked = walk_files(ws, 1_000_000)
        walk_s = time.perf_counter() - start
        start = time.perf_counter()
        search = PathSearch(paths)
        prep_s = time.perf_counter() - start
        print(
            f"index: git ls-files {git_s * 1000:.0f} ms ({len(paths):,} files listed), "
            f".gitignore walk {walk_s * 1000:.0f} ms ({len(walked):,}), "
            f"search prepared in {prep_s * 1000:.0f} ms"
        )
        if set(paths) != set(walked):
            print(f"note: git and the walk differ by {len(set(paths) ^ set(walked))} paths")
        qs = queries(args.queries)
        for q in qs[:20]:  # warm the regex cache as a person's session would
            search.search(q)
        ours = timed(search.search, qs)
        lowered = [p.lower() for p in paths]

        def baseline(q: str) -> list[str]:
            return [p for p, low in zip(paths, lowered, strict=True) if q in low][:50]

        base = timed(baseline, qs)
        print(f"{'':24}{'p50':>9}{'p95':>9}{'max':>9}  (ms, {len(qs)} queries)")
        for name, values in (("PathSearch (ranked)", ours), ("substring scan baseline", base)):
            print(f"{name:24}{pct(values, 0.5):9.2f}{pct(values, 0.95):9.2f}{max(values):9.2f}")
        print(
            f"ratio to the baseline: p50 {pct(ours, 0.5) / pct(base, 0.5):.2f}, "
            f"p95 {pct(ours, 0.95) / pct(base, 0.95):.2f}"
        )
        ok = pct(ours, 0.95) < 50
        print(f"p95 under 50 ms: {'yes' if ok else 'NO'}")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
