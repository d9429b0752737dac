"""A rewind killed with SIGKILL at random points leaves, once recovered, the old state or the new
one: never a mix, never a temporary file. The rewind runs in a child process that says each step
(journal, each file staged, committed, each file applied) and pauses after it; the parent kills
it after a chosen step plus a random part of the pause (so inside the next step too), then
recovers as the next run would."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from tui_agent.checkpoints import recover

from .checkpoint_helpers import Bench, State, picture

ROOT = Path(__file__).resolve().parent.parent
# Steps after which to kill: before staging, while staging, right after the commit, while
# applying, and never (the rewind finishes).
KILL_AFTER = (1, 2, 5, 9, 10, 11, 14, 18, 1000)
PAUSE_S = 0.02


def _original(ws: Path) -> None:
    for name in list(ws.iterdir()):
        if name.is_dir() and not name.is_symlink():
            for inner in name.iterdir():
                inner.unlink()
            name.rmdir()
        else:
            name.unlink()
    for n in range(6):
        (ws / f"keep{n}.txt").write_text(f"original {n}\n" * (n + 1))
    (ws / "bin.dat").write_bytes(bytes(range(256)))
    os.chmod(ws / "keep0.txt", 0o600)
    os.symlink("keep1.txt", ws / "link")


AGENT = (
    "for n in 0 1 2 3 4 5; do echo agent $n > keep$n.txt; done; "
    "mkdir -p made && echo m > made/m.txt && echo n > new.txt && rm bin.dat && "
    "rm link && echo nolink > link"
)


async def test_a_rewind_killed_at_random_points_is_old_or_new(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    ws = bench.workspace
    _original(ws)
    new: State = bench.state()  # what the rewind gives back
    out = await bench.call("run_command", json.dumps({"command": AGENT}))
    assert not out.is_error, out.text
    old: State = bench.state()  # what the agent left
    records = tmp_path / "records.jsonl"
    records.write_text("".join(r.model_dump_json() + "\n" for r in bench.kept.records))
    assert len(bench.plan().files) == 10
    seen = {"old": 0, "new": 0}
    rng = random.Random(16)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for kill_after in KILL_AFTER:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.rewind_child", str(ws), str(bench.checkpoints_root),
             str(records), str(PAUSE_S)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        for _ in range(kill_after):
            if child.stdout.readline().strip() in ("done", ""):
                break
        time.sleep(rng.uniform(0, PAUSE_S * 1.5))
        child.kill()
        child.wait()
        recover(bench.folder)
        now = picture(ws)
        # Folders the staging made for a rolled-back rewind may stay (empty); nothing else.
        if now == old or {k: v for k, v in now.items() if k != "made"} == old:
            seen["old"] += 1
        else:
            extra = {k: v for k, v in now.items() if k not in new}
            assert now == new or extra == {"made": extra.get("made")}, (now, old, new)
            seen["new"] += 1
        assert not any(".tui-agent-rewind-" in name for name in now)
        assert not bench.folder.journal.exists()
        # Back to the agent's state for the next run.
        _original(ws)
        subprocess.run(["sh", "-c", AGENT], cwd=ws, check=True)
        assert picture(ws) == old
    assert seen["old"] and seen["new"], seen
