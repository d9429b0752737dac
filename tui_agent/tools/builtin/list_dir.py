"""list_dir: the entries of a workspace directory, sorted, with directories and symlinks marked."""

from __future__ import annotations

import functools
import heapq
import os
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..file_access import describe_os_error, open_folder
from ..sandbox import is_protected, resolve_in_workspace, shown_path
from ..spec import Risk, ToolContext, ToolFailure, ToolOutput, ToolSpec
from .blocking import run_blocking

MAX_ENTRIES = 1000


class ListDirArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    path: str = Field(description="The directory to list, relative to the workspace ('.' for it).")


async def run_list_dir(args: ListDirArgs, ctx: ToolContext) -> ToolOutput:
    return await run_blocking(functools.partial(list_dir, args, ctx))


def list_dir(args: ListDirArgs, ctx: ToolContext) -> ToolOutput:
    """One entry per line: ``name/`` for a directory, ``name@ -> target`` for a symlink."""
    path = resolve_in_workspace(args.path, ctx)
    shown = shown_path(path, ctx)
    if not path.exists():
        raise ToolFailure(f"{shown}: no such directory")
    if not path.is_dir():
        raise ToolFailure(f"{shown} is not a directory; use read_file for a file")
    counter = _Counter()
    try:
        folder = open_folder(path, ctx.workspace)
    except OSError as exc:
        raise ToolFailure(describe_os_error(exc, shown)) from None
    try:
        # nsmallest keeps memory at MAX_ENTRIES however large the directory is.
        with os.scandir(folder) as entries:
            first = heapq.nsmallest(MAX_ENTRIES, counter.count(entries), key=lambda e: e.name)
        lines = [_describe(entry, folder, path, ctx) for entry in first]
    finally:
        os.close(folder)
    if not lines:
        return ToolOutput(f"[list_dir: {shown} is empty]")
    if counter.total > len(first):
        lines.append(
            f"[list_dir: showing the first {len(first)} of {counter.total} entries by name]"
        )
    return ToolOutput("\n".join(lines))


class _Counter:
    def __init__(self) -> None:
        self.total = 0

    def count(self, entries: Iterator[os.DirEntry[str]]) -> Iterator[os.DirEntry[str]]:
        for entry in entries:
            self.total += 1
            yield entry


def _describe(entry: os.DirEntry[str], folder: int, path: Path, ctx: ToolContext) -> str:
    if entry.is_symlink():
        try:
            target = os.readlink(entry.name, dir_fd=folder)
        except OSError:
            target = "?"
        return f"{entry.name}@ -> {target}"
    if entry.is_dir(follow_symlinks=False):
        if is_protected(path / entry.name, ctx):
            return f"{entry.name}/ (the app's own files; not accessible)"
        return f"{entry.name}/"
    return entry.name


LIST_DIR = ToolSpec(
    name="list_dir",
    description=(
        "List a directory in the workspace, sorted by name: 'name/' is a directory, "
        "'name@ -> target' a symbolic link, anything else a file. Long listings are capped "
        f"at {MAX_ENTRIES} entries with a note."
    ),
    args_model=ListDirArgs,
    risk=Risk.READ,
    run=run_list_dir,
)
