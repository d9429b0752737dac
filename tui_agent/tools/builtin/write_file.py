"""write_file: create or replace a workspace file with the given text, atomically."""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..file_access import make_folders, write_atomically
from ..sandbox import MissingParentError, resolve_in_workspace, shown_path
from ..spec import Risk, ToolContext, ToolFailure, ToolOutput, ToolSpec
from .blocking import run_blocking


class WriteFileArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    path: str = Field(
        description="The file to write, relative to the workspace. Missing folders are created."
    )
    content: str = Field(description="The complete new content of the file (UTF-8 text).")


async def run_write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolOutput:
    return await run_blocking(functools.partial(write_file, args, ctx))


def write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolOutput:
    """Write the content, creating missing folders inside the workspace; report the size."""
    created_folders = False
    try:
        target = resolve_in_workspace(args.path, ctx, for_write=True)
    except MissingParentError:
        # Resolved without for_write: existing symlinks followed, result checked inside.
        _make_folders(resolve_in_workspace(args.path, ctx).parent, ctx)
        created_folders = True
        target = resolve_in_workspace(args.path, ctx, for_write=True)
    shown = shown_path(target, ctx)
    if target.is_dir():
        raise ToolFailure(f"{shown} is a directory")
    existed = target.exists()
    data = args.content.encode("utf-8")
    write_atomically(target, data, ctx.workspace, shown)
    verb = "replaced" if existed else "created"
    folders = " (and its missing folders)" if created_folders else ""
    size = "1 byte" if len(data) == 1 else f"{len(data):,} bytes"
    return ToolOutput(f"{verb} {shown}{folders}: {size} written")


def _make_folders(folder: Path, ctx: ToolContext) -> None:
    try:
        make_folders(folder, ctx.workspace)
    except NotADirectoryError:
        raise ToolFailure(
            f"cannot create the folder {shown_path(folder, ctx)}: a file is in the way"
        ) from None


WRITE_FILE = ToolSpec(
    name="write_file",
    description=(
        "Create or overwrite a text file in the workspace with the given content, creating "
        "missing folders. The whole file is replaced at once; use edit_file for a small change."
    ),
    args_model=WriteFileArgs,
    risk=Risk.WRITE,
    run=run_write_file,
)
