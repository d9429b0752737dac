"""Time to the first screen ready for input: a minimal Textual app against tui-agent's app.

    python3 bench/ui_startup_bench.py [--runs 7]

Each run is a fresh interpreter (``python3 -c``), so imports are paid as a user pays them. The
time is from spawning the process to the moment Textual posts ``Ready`` (the first frame is on
screen and the message box has focus), headless at 120x40 through ``run_test``; the child
reports it on stdout and is then killed, so teardown is not counted. The contenders run
alternately, ``--runs`` times each, and the medians are compared in this one run:

- ``minimal``: an App with one Static (Textual's floor on this machine, now);
- ``app``: ``TuiAgentApp()`` (the offline demo profile, no config);
- ``cli``: what ``tui-agent`` runs: ``tui_agent.cli.main([])`` up to the app's first frame
  (argument parsing included).

Goal (issue 33): ``app`` and ``cli`` at most 0.1 s over ``minimal``. Each child gets empty,
throwaway config/data/state folders. Beside the wall time, each child's CPU seconds at Ready are
printed: on a shared, loaded machine they move far less than the wall time does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET_S = 0.10
CONTENDERS = ("minimal", "app", "cli")

# The hook prints the moment Ready is posted; os._exit skips teardown (not measured).
_HOOK = """
import os, sys
from textual import events

def hook(message):
    if isinstance(message, events.Ready):
        import time
        sys.stdout.write(f"ready {time.process_time():.4f}\\n")
        sys.stdout.flush()
        os._exit(0)
"""

CHILDREN = {
    "minimal": _HOOK
    + """
import asyncio
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("Hello")

async def main():
    async with Minimal().run_test(size=(120, 40), message_hook=hook):
        await asyncio.sleep(60)

asyncio.run(main())
""",
    "app": _HOOK
    + """
import asyncio
from tui_agent.ui.app import TuiAgentApp

async def main():
    async with TuiAgentApp().run_test(size=(120, 40), message_hook=hook):
        await asyncio.sleep(60)

asyncio.run(main())
""",
    # tui_agent.cli.main builds the app and calls app.run(); here run() is replaced by the
    # same headless run_test as the others, so only the CLI's own work is added.
    "cli": _HOOK
    + """
import asyncio
from tui_agent.ui.app import TuiAgentApp

def headless_run(self, *args, **kwargs):
    async def main():
        async with self.run_test(size=(120, 40), message_hook=hook):
            await asyncio.sleep(60)
    asyncio.run(main())

TuiAgentApp.run = headless_run
from tui_agent import cli
cli.main([])
""",
}


def once(kind: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds from the spawn to Ready, and the child's CPU seconds by then."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILDREN[kind]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    elapsed = time.perf_counter() - started
    child.kill()
    _, err = child.communicate()
    word, _, cpu = line.strip().partition(" ")
    if word != "ready":
        raise RuntimeError(f"{kind}: no first screen\n{err}")
    return elapsed, float(cpu)


def child_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    for name in ("config", "data", "state"):
        folder = root / name
        folder.mkdir(exist_ok=True)
        env[f"XDG_{name.upper()}_HOME"] = str(folder)
    env.pop("TEXTUAL", None)
    # Bytecode as a user's install has it: pip writes it for an installed package, and an
    # editable one writes it on the first run. Without it every run compiles the app's own
    # modules from source (~30-60 ms here) and the minimal app, all installed, compiles none.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    times: dict[str, list[float]] = {kind: [] for kind in CONTENDERS}
    cpus: dict[str, list[float]] = {kind: [] for kind in CONTENDERS}
    with tempfile.TemporaryDirectory(prefix="tui-agent-startup-") as temp:
        env = child_env(Path(temp))
        for kind in CONTENDERS:  # warm the file cache and the bytecode once, unmeasured
            once(kind, env)
        for _ in range(runs):
            for kind in CONTENDERS:
                wall, cpu = once(kind, env)
                times[kind].append(wall)
                cpus[kind].append(cpu)
    floor = statistics.median(times["minimal"])
    cpu_floor = statistics.median(cpus["minimal"])
    print(f"time to first screen, median of {runs} alternating runs (headless, 120x40)")
    print(
        f"{'contender':<10} {'median':>8} {'min':>8} {'max':>8} {'over minimal':>13}"
        f" {'CPU':>7} {'CPU over':>9}"
    )
    verdict = 0
    for kind in CONTENDERS:
        values = times[kind]
        median = statistics.median(values)
        over = median - floor
        cpu = statistics.median(cpus[kind])
        print(
            f"{kind:<10} {median:>7.3f}s {min(values):>7.3f}s {max(values):>7.3f}s {over:>+12.3f}s"
            f" {cpu:>6.3f}s {cpu - cpu_floor:>+8.3f}s"
        )
        if kind != "minimal" and over > BUDGET_S:
            verdict = 1
    print(f"goal: at most +{BUDGET_S:.2f} s over minimal: {'met' if verdict == 0 else 'NOT met'}")
    return verdict


if __name__ == "__main__":
    sys.exit(main())
