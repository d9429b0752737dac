"""What a checkpoint costs, against a baseline measured in the same run.

    python3 bench/checkpoint_bench.py [--files 10000] [--runs 15]

- A command's checkpoint (a shadow-repository snapshot) of a workspace of ``--files`` small
  files in 100 folders: the first one (the shadow repository is made and every file hashed),
  one with nothing changed, and one after a file changed; against ``git add -A`` + ``git
  write-tree`` in a fresh repository (cold) and again with nothing changed (warm).
- A file tool's checkpoint (the file's exact state, kept in the blob store, synced) of a 10 KB
  file: a first capture and one of unchanged content; against a plain copy of the file
  (``shutil.copyfile``) and a copy with fsync.

Each figure is the median of ``--runs`` (the cold ones: of 3 fresh workspaces).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tui_agent.checkpoints import Checkpointer

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def make_workspace(root: Path, files: int) -> Path:
    ws = root / "ws"
    for n in range(files):
        folder = ws / f"d{n % 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n}.txt").write_text(f"file {n}\n" * 8)
    return ws


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, env=GIT_ENV, check=True, capture_output=True)


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def one_workspace(files: int, runs: int, found: dict[str, list[float]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = make_workspace(root, files)
        checkpointer = Checkpointer(ws, root=root / "checkpoints")
        found["cold"].append(timed(lambda: checkpointer.snapshot("c", "run_command")))
        base = make_workspace(root / "base", files)

        def fresh_repo() -> None:
            git(base, "init", "-q")
            git(base, "add", "-A")
            git(base, "write-tree")

        found["cold_base"].append(timed(fresh_repo))
        for n in range(runs):
            found["warm"].append(timed(lambda: checkpointer.snapshot("c", "run_command")))
            found["warm_base"].append(
                timed(lambda: (git(base, "add", "-A"), git(base, "write-tree")))
            )
            (ws / "d07" / "f7.txt").write_text(f"changed {n}\n")
            found["changed"].append(timed(lambda: checkpointer.snapshot_after("c")))


def snapshots(files: int, runs: int) -> dict[str, float]:
    found: dict[str, list[float]] = {
        key: [] for key in ("cold", "cold_base", "warm", "warm_base", "changed")
    }
    for _ in range(3):
        one_workspace(files, runs, found)
    return {
        "snapshot, first": median_ms(found["cold"]),
        "git init + add -A + write-tree, fresh repo": median_ms(found["cold_base"]),
        "snapshot, nothing changed": median_ms(found["warm"]),
        "git add -A + write-tree, nothing changed": median_ms(found["warm_base"]),
        "snapshot, one file changed": median_ms(found["changed"]),
    }


def file_captures(runs: int) -> dict[str, float]:
    first, again, copy, synced = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = root / "ws"
        ws.mkdir()
        target = ws / "edited.py"
        checkpointer = Checkpointer(ws, root=root / "checkpoints")
        for n in range(runs):
            target.write_bytes(os.urandom(5000).hex().encode())  # new content: a first capture
            first.append(timed(lambda: checkpointer.capture_files("c", "edit_file", ["edited.py"])))
            again.append(timed(lambda: checkpointer.capture_files("c", "edit_file", ["edited.py"])))
            copy.append(timed(lambda n=n: shutil.copyfile(target, root / f"copy{n}")))

            def copy_synced(n: int = n) -> None:
                shutil.copyfile(target, root / f"synced{n}")
                with open(root / f"synced{n}", "rb+") as handle:
                    os.fsync(handle.fileno())

            synced.append(timed(copy_synced))
    return {
        "file checkpoint, new content": median_ms(first),
        "file checkpoint, content already kept": median_ms(again),
        "cp of the file (shutil.copyfile)": median_ms(copy),
        "cp of the file + fsync": median_ms(synced),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print(f"{args.files:,} files, {args.runs} runs, {os.cpu_count()} cores, {sys.platform}")
    snap = snapshots(args.files, args.runs)
    for name, value in snap.items():
        print(f"  {name:<48} {value:8.1f} ms")
    cold = snap["snapshot, first"] / snap["git init + add -A + write-tree, fresh repo"]
    warm = snap["snapshot, nothing changed"] / snap["git add -A + write-tree, nothing changed"]
    print(f"  ratio first/fresh repo {cold:.2f}x, unchanged/warm git {warm:.2f}x")
    single = file_captures(args.runs)
    for name, value in single.items():
        print(f"  {name:<48} {value:8.2f} ms")
    ratio = single["file checkpoint, new content"] / single["cp of the file + fsync"]
    plain = single["file checkpoint, new content"] / single["cp of the file (shutil.copyfile)"]
    print(f"  ratio file checkpoint / cp+fsync {ratio:.2f}x, / plain cp {plain:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
