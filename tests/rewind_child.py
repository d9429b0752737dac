"""A rewind in a process of its own, slowed down between steps, for the crash tests:

    python -m tests.rewind_child WORKSPACE CHECKPOINTS RECORDS_JSONL PAUSE_S

It prints ``ready`` just before the rewind starts, then applies it (every recorded change
undone, conflicts overwritten), printing each step's name and sleeping PAUSE_S after it, and
prints ``done``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tui_agent.checkpoints import CheckpointFolder, apply, plan_rewind
from tui_agent.session.codec import record_adapter


def main(argv: list[str]) -> int:
    workspace, root, records_file, pause = argv[1:5]
    adapter = record_adapter()
    records = [adapter.validate_json(line) for line in Path(records_file).read_text().splitlines()]
    folder = CheckpointFolder(Path(workspace), Path(root))
    plan = plan_rewind(folder, records)
    changes = [item.change() for item in plan.files]
    print("ready", flush=True)

    def step(name: str) -> None:
        print(name, flush=True)
        time.sleep(float(pause))

    apply(folder, changes, pause=step)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
