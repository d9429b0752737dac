"""read_file: the text of a file in the workspace, by lines, never more than ~256 KB at once;
a PNG, JPEG, GIF or WebP file is returned as an image (checked and scaled down: images/)."""

from __future__ import annotations

import functools
from typing import BinaryIO

from pydantic import BaseModel, ConfigDict, Field

from ...images import ImageError, read_image, sniffed_image
from ..file_access import open_regular_file
from ..sandbox import resolve_in_workspace, shown_path
from ..spec import Risk, ToolContext, ToolOutput, ToolSpec
from ..text_files import is_binary_file
from .blocking import run_blocking

MAX_OUTPUT_BYTES = 256 * 1024
_SKIP_CHUNK = 1024 * 1024


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    path: str = Field(description="The file to read, relative to the workspace.")
    offset: int = Field(0, ge=0, description="How many lines to skip from the start of the file.")
    limit: int | None = Field(
        None, ge=1, description="The most lines to return (default: as many as fit in 256 KB)."
    )


async def run_read_file(args: ReadFileArgs, ctx: ToolContext) -> ToolOutput:
    return await run_blocking(functools.partial(read_file, args, ctx))


def read_file(args: ReadFileArgs, ctx: ToolContext) -> ToolOutput:
    """The requested lines, with a closing note when more remain."""
    path = resolve_in_workspace(args.path, ctx)
    shown = shown_path(path, ctx)
    with open_regular_file(path, shown, ctx.workspace) as handle:
        if sniffed_image(handle) is not None:
            return _image(handle, shown)
        if is_binary_file(handle):
            return ToolOutput(
                f"{shown} looks like a binary file; read_file only shows text", is_error=True
            )
        skipped = _skip_lines(handle, args.offset)
        lines, stop = _take_lines(handle, args.limit)
        more = stop != "end" or bool(handle.read(1))
    if not lines:
        if args.offset == 0:
            return ToolOutput(f"[read_file: {shown} is empty]")
        return ToolOutput(
            f"[read_file: {shown} has {skipped} lines; nothing at offset {args.offset}]"
        )
    text = b"".join(lines).decode("utf-8", "replace")
    if not more:
        return ToolOutput(text)
    first, last = args.offset + 1, args.offset + len(lines)
    cut = f"line {last} is longer than 256 KB; only its start is shown; " if stop == "cut" else ""
    if not text.endswith("\n"):
        text += "\n"
    return ToolOutput(
        f"{text}[read_file: {cut}showed lines {first}-{last}; more remain, continue with "
        f"offset={last}]"
    )


def _image(handle: BinaryIO, shown: str) -> ToolOutput:
    try:
        image = read_image(handle, shown)
    except ImageError as exc:
        return ToolOutput(f"{exc}; read_file sent nothing of it", is_error=True)
    scaled = ", scaled down to fit" if image.scaled else ""
    return ToolOutput(
        f"[read_file: {shown} is an image ({image.describe()}{scaled}); it is attached]",
        images=(image,),
    )


def _skip_lines(handle: BinaryIO, count: int) -> int:
    """Skip ``count`` lines without holding a long one in memory; returns the lines skipped."""
    skipped = 0
    partial = False
    while skipped < count:
        chunk = handle.readline(_SKIP_CHUNK)
        if not chunk:
            # A last line without a newline still counts as a line.
            return skipped + partial
        partial = not chunk.endswith(b"\n")
        skipped += not partial
    return skipped


def _take_lines(handle: BinaryIO, limit: int | None) -> tuple[list[bytes], str]:
    """Up to ``limit`` lines within the byte budget, and why reading stopped.

    The reason is "end" (limit or end of file), "budget" (the next line did not fit) or "cut"
    (a single line longer than the budget, of which the start is returned).
    """
    lines: list[bytes] = []
    used = 0
    while limit is None or len(lines) < limit:
        line = handle.readline(MAX_OUTPUT_BYTES - used + 1)
        if not line:
            break
        if used + len(line) > MAX_OUTPUT_BYTES:
            if lines:
                return lines, "budget"
            # One line longer than the whole budget: show its start rather than nothing.
            return [line[:MAX_OUTPUT_BYTES]], "cut"
        lines.append(line)
        used += len(line)
    return lines, "end"


READ_FILE = ToolSpec(
    name="read_file",
    description=(
        "Read a text file in the workspace. Returns the file's lines exactly (no line numbers); "
        "when more remain, a final bracketed note says which offset to continue from. A PNG, "
        "JPEG, GIF or WebP image is returned as an image; other binary files are refused."
    ),
    args_model=ReadFileArgs,
    risk=Risk.READ,
    run=run_read_file,
)
