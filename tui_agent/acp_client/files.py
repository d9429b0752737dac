"""The agent's ``fs/read_text_file`` and ``fs/write_text_file``, served inside the workspace.

The same rules as the built-in file tools (tools/sandbox.py: inside the workspace, out of the
app's own folders, never through a symlink; the write is tools/builtin/write_file.py's own,
atomic), and a write is checkpointed first (checkpoints/: a ``checkpoint`` record before it,
``checkpoint_done`` after), so a rewind undoes what the agent wrote.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from ..checkpoints import Checkpointer
from ..session.records import Record
from ..tools.builtin.write_file import WriteFileArgs, write_file
from ..tools.file_access import open_regular_file
from ..tools.sandbox import SandboxError, resolve_in_workspace, shown_path, workspace_relative
from ..tools.spec import ToolContext, ToolFailure

MAX_READ_BYTES = 16 * 1024 * 1024  # of one file the agent reads


class FileRefused(Exception):
    """A read or write the workspace rules refuse; the message says why (sent to the agent)."""


class FileMissing(FileRefused):
    """The file to read does not exist (the protocol's "resource not found")."""


def read_text(ctx: ToolContext, path: str, line: int | None, limit: int | None) -> str:
    """The file's text (from 1-based ``line``, at most ``limit`` lines)."""
    try:
        real = resolve_in_workspace(path, ctx)
        shown = shown_path(real, ctx)
        if not os.path.lexists(real):
            raise FileMissing(f"{shown}: no such file")
        with open_regular_file(real, shown, ctx.workspace) as handle:
            data = handle.read(MAX_READ_BYTES + 1)
    except (SandboxError, ToolFailure) as exc:
        raise FileRefused(str(exc)) from None
    if len(data) > MAX_READ_BYTES:
        raise FileRefused(f"{shown} is larger than {MAX_READ_BYTES // (1024 * 1024)} MB")
    text = data.decode("utf-8", "replace")
    if line is None and limit is None:
        return text
    lines = text.splitlines(keepends=True)
    start = max((line or 1) - 1, 0)
    end = len(lines) if limit is None else start + max(limit, 0)
    return "".join(lines[start:end])


async def write_text(
    ctx: ToolContext,
    path: str,
    content: str,
    *,
    checkpointer: Checkpointer | None,
    call_id: str,
    write: Callable[[Record], None],
) -> str:
    """Write ``content`` to ``path`` after its checkpoint; returns what was done."""
    rel = workspace_relative(path, ctx)
    if rel is None:
        try:
            resolve_in_workspace(path, ctx, for_write=True)
        except SandboxError as exc:
            raise FileRefused(str(exc)) from None
        raise FileRefused(f"path {path!r} does not name a file in the workspace")
    start: Record | None = None
    if checkpointer is not None:
        start = await asyncio.to_thread(
            checkpointer.capture_files, call_id, "write_text_file", [rel]
        )
        write(start)
    try:
        args = WriteFileArgs(path=path, content=content)
        return (await asyncio.to_thread(write_file, args, ctx)).text
    except (SandboxError, ToolFailure) as exc:
        raise FileRefused(str(exc)) from None
    finally:
        if checkpointer is not None and start is not None and not getattr(start, "error", None):
            done = await asyncio.shield(asyncio.to_thread(checkpointer.files_after, call_id, [rel]))
            write(done)
