"""Run a module or a script with cProfile on only between SIGUSR1 and SIGUSR2 (the stats are
written at SIGUSR2), so that a bench profiles the stretch it times and not the start-up.

    python3 bench/profiled_child.py OUT.prof -m tui_agent ARGS...
    python3 bench/profiled_child.py OUT.prof SCRIPT.py ARGS...

The profiler sees the thread that gets the signals: the main one, the event loop's.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
from types import FrameType


def main() -> None:
    out, target = sys.argv[1], sys.argv[2:]
    profiler = cProfile.Profile()

    def start(_signum: int, _frame: FrameType | None) -> None:
        profiler.enable()

    def stop(_signum: int, _frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    if target[0] == "-m":
        sys.argv = [target[1], *target[2:]]
        runpy.run_module(target[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = target
        runpy.run_path(target[0], run_name="__main__")


if __name__ == "__main__":
    main()
