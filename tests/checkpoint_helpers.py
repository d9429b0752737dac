"""Checkpoint tests' shared pieces: a workspace with its checkpoints folder, real tools run
through the checkpoint hook, a recorder that keeps the records, a rewind of everything recorded,
and an exact picture of a folder (never through a symlink)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from tui_agent.agent.call_checkpoints import CallCheckpoints
from tui_agent.agent.call_sandbox import SandboxGate
from tui_agent.agent.events import AgentEvent
from tui_agent.agent.recorder import SessionRecorder
from tui_agent.agent.rewind import RewindResult, apply_plan
from tui_agent.checkpoints import Checkpointer, Limits, Plan, plan_rewind
from tui_agent.stream.turn import ToolCall
from tui_agent.tools import ToolContext, ToolOutput
from tui_agent.tools.registry import ToolRegistry, builtin_registry
from tui_agent.tools.spec import ToolSpec
from tui_agent.tools.validation import ValidatedCall, validate_call

State = dict[str, tuple[str, bytes, int]]


class Kept:
    """A record writer that keeps what it is given."""

    def __init__(self) -> None:
        self.records: list[Any] = []
        self.degraded: str | None = None  # never: nothing is written

    def append(self, record: Any, *, sync: bool | None = None) -> Any:
        self.records.append(record)
        return record


class Bench:
    """A workspace ``ws`` and its checkpoints under ``root``; tools run with the hook."""

    def __init__(
        self, root: Path, *, extra: list[ToolSpec] | None = None, limits: Limits | None = None
    ) -> None:
        self.workspace = (root / "ws").resolve()
        self.workspace.mkdir(exist_ok=True)
        self.checkpoints_root = root / "checkpoints"
        self.kept = Kept()
        self.checkpointer = Checkpointer(self.workspace, root=self.checkpoints_root, limits=limits)
        self.hook = CallCheckpoints(self.checkpointer, SessionRecorder(self.kept))
        self.registry: ToolRegistry = builtin_registry(extra or [])
        self.context = ToolContext(workspace=self.workspace, protected=(root / "checkpoints",))
        self.gate = SandboxGate()
        self.events: list[AgentEvent] = []
        self._calls = 0

    @property
    def folder(self) -> Any:
        return self.checkpointer.folder

    async def call(self, name: str, arguments: str) -> ToolOutput:
        self._calls += 1
        call = ToolCall(id=f"call_{self._calls}", name=name, arguments=arguments)
        checked = validate_call(self.registry, call)
        assert isinstance(checked, ValidatedCall), checked
        run = checked.spec.run(checked.args, self.context)
        wrapped = self.hook.around(checked, self.context, run, self.events.append, self.gate)
        return await wrapped

    def plan(self, since: int = 0) -> Plan:
        return plan_rewind(self.folder, self.kept.records[since:])

    def rewind(self, since: int = 0, *, overwrite: bool = False) -> RewindResult:
        return apply_plan(
            self.folder, self.plan(since), lambda _item: overwrite, self.kept.append, to=1
        )

    def state(self) -> State:
        return picture(self.workspace)


def picture(root: Path, *, skip_git: bool = False) -> State:
    """Every entry under ``root``: kind, content (a symlink's target) and mode bits."""
    found: State = {}
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        if skip_git and rel_folder.split(os.sep)[0] == ".git":
            continue
        for name in sorted(dirs + files):
            path = Path(folder) / name
            rel = os.path.normpath(os.path.join(rel_folder, name))
            info = path.lstat()
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", os.fsencode(os.readlink(path)), 0)
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = ("dir", b"", mode)
            else:
                found[rel] = ("file", path.read_bytes(), mode)
    return found


def git_picture(git_dir: Path) -> dict[str, tuple[bytes, int]]:
    """A repository folder byte for byte, with modification times (ns)."""
    found = {}
    for folder, _dirs, files in os.walk(git_dir):
        for name in files:
            path = Path(folder) / name
            found[str(path.relative_to(git_dir))] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found
