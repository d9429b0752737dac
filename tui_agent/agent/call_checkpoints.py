"""The checkpoint taken around an approved call that can change files (see checkpoints/).

- write_file and edit_file: the file they name, exactly (content, mode, existence).
- run_command and user-defined tools: a shadow-repository snapshot, unless the call runs under a
  read-only sandbox this machine enforces (then it cannot change files).
- Any other tool of write or execute risk (MCP tools): a snapshot. Read and network tools: none.

Each checkpointed call gets a ``checkpoint`` record before it runs (synced, so a crash while it
runs still leaves it) and a ``checkpoint_done`` record after it ended, however it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Literal

from ..checkpoints import Checkpointer, Limits
from ..sandbox.policy import SandboxMode
from ..tools.sandbox import workspace_relative
from ..tools.spec import Risk, ToolContext, ToolOutput, ToolSpec
from ..tools.validation import ValidatedCall
from .call_sandbox import SandboxGate
from .events import AgentEvent, Notice, NoticeLevel
from .recorder import SessionRecorder

Method = Literal["file", "snapshot"]
FILE_TOOLS = frozenset({"write_file", "edit_file"})


def is_builtin_file_tool(spec: ToolSpec) -> bool:
    from ..tools.builtin.edit_file import EDIT_FILE
    from ..tools.builtin.write_file import WRITE_FILE

    return spec.run in (WRITE_FILE.run, EDIT_FILE.run)


class CallCheckpoints:
    def __init__(self, checkpointer: Checkpointer, recorder: SessionRecorder) -> None:
        self.checkpointer = checkpointer
        self.recorder = recorder
        self._told: set[str] = set()  # notices already shown this session

    def method(self, spec: ToolSpec, context: ToolContext, gate: SandboxGate) -> Method | None:
        if is_builtin_file_tool(spec):
            return "file"
        if spec.risk not in (Risk.WRITE, Risk.EXECUTE):
            return None
        policy = gate.policy_for(spec, context)
        read_only = policy is not None and policy.mode is SandboxMode.READ_ONLY
        if read_only and gate.caps.landlock_abi > 0:
            return None  # the OS refuses every write of the call
        return "snapshot"

    def around(
        self,
        call: ValidatedCall,
        context: ToolContext,
        run: Coroutine[Any, Any, ToolOutput],
        emit: Callable[[AgentEvent], None],
        gate: SandboxGate,
    ) -> Coroutine[Any, Any, ToolOutput]:
        """``run`` with its checkpoint around it (``run`` itself when none is needed)."""
        method = self.method(call.spec, context, gate)
        if method is None:
            return run
        return self._around(call, context, run, emit, method)

    async def _around(
        self,
        call: ValidatedCall,
        context: ToolContext,
        run: Coroutine[Any, Any, ToolOutput],
        emit: Callable[[AgentEvent], None],
        method: Method,
    ) -> ToolOutput:
        cp = self.checkpointer
        call_id, tool = call.call.id, call.spec.name
        paths = _file_paths(call, context) if method == "file" else []
        try:
            if method == "file":
                start = await asyncio.to_thread(cp.capture_files, call_id, tool, paths)
            else:
                start = await asyncio.to_thread(cp.snapshot, call_id, tool)
        except BaseException:
            run.close()
            raise
        self.recorder.append(start, sync=True)
        if start.error:
            self._tell(f"{tool} runs without a checkpoint: {start.error}", "warning", emit)
        elif start.notice:
            self._tell(f"checkpoint of {tool}: {start.notice}", "info", emit)
        try:
            return await run
        finally:
            if start.error is None and (method == "file" or start.tree is not None):
                after: Callable[[], Any] = (
                    (lambda: cp.files_after(call_id, paths))
                    if method == "file"
                    else (lambda: cp.snapshot_after(call_id))
                )
                with contextlib.suppress(asyncio.CancelledError):
                    done = await asyncio.shield(asyncio.to_thread(after))
                    self.recorder.append(done, sync=True)

    def _tell(self, text: str, level: NoticeLevel, emit: Callable[[AgentEvent], None]) -> None:
        if text not in self._told:
            self._told.add(text)
            emit(Notice(text, level))


def call_checkpoints(
    workspace: Path, recorder: SessionRecorder, limits: Limits | None = None
) -> CallCheckpoints:
    """Checkpoints of the workspace, kept in the app's data folder (``limits``: config's)."""
    return CallCheckpoints(Checkpointer(workspace, limits=limits), recorder)


def _file_paths(call: ValidatedCall, context: ToolContext) -> list[str]:
    """The workspace-relative path the file tool will write, as the tool resolves it."""
    path = getattr(call.args, "path", None)
    if not isinstance(path, str):
        return []
    rel = workspace_relative(path, context)
    return [rel] if rel is not None else []
