"""edit_file: replace one exact, unique piece of text in a workspace file, atomically."""

from __future__ import annotations

import functools

from pydantic import BaseModel, ConfigDict, Field

from ..file_access import open_regular_file, write_atomically
from ..sandbox import resolve_in_workspace, shown_path
from ..spec import Risk, ToolContext, ToolFailure, ToolOutput, ToolSpec
from ..text_files import looks_binary
from .blocking import run_blocking

MAX_EDIT_BYTES = 10 * 1024 * 1024
# Counting stops here: "at least 100 times" tells the model all it needs.
_COUNT_LIMIT = 100


class EditFileArgs(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    path: str = Field(description="The file to edit, relative to the workspace.")
    old: str = Field(
        min_length=1,
        description="The exact text to replace, including whitespace; it must occur exactly once.",
    )
    new: str = Field(description="The text to put in its place.")


async def run_edit_file(args: EditFileArgs, ctx: ToolContext) -> ToolOutput:
    return await run_blocking(functools.partial(edit_file, args, ctx))


def edit_file(args: EditFileArgs, ctx: ToolContext) -> ToolOutput:
    """Replace ``old`` by ``new`` when ``old`` occurs exactly once; otherwise say how often."""
    if args.old == args.new:
        raise ToolFailure("old and new are the same; nothing would change")
    path = resolve_in_workspace(args.path, ctx, for_write=True)
    shown = shown_path(path, ctx)
    with open_regular_file(path, shown, ctx.workspace) as handle:
        data = handle.read(MAX_EDIT_BYTES + 1)
    if len(data) > MAX_EDIT_BYTES:
        raise ToolFailure(f"{shown} is larger than {MAX_EDIT_BYTES // 2**20} MB; use write_file")
    if looks_binary(data[:8192]):
        raise ToolFailure(f"{shown} looks like a binary file; edit_file only edits text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Decoding with replacement and writing back would corrupt the undecodable bytes.
        raise ToolFailure(f"{shown} is not valid UTF-8; refusing to edit it") from None
    found = _occurrences(text, args.old)
    if found != 1:
        raise ToolFailure(_not_unique(found, shown, text, args.old))
    start = text.index(args.old)
    updated = text[:start] + args.new + text[start + len(args.old) :]
    encoded = updated.encode("utf-8")
    write_atomically(path, encoded, ctx.workspace, shown)
    line = text.count("\n", 0, start) + 1
    return ToolOutput(f"edited {shown} at line {line}: now {len(encoded):,} bytes")


def _occurrences(text: str, old: str) -> int:
    """Occurrences of ``old``, overlapping ones included ("aa" is twice in "aaa")."""
    count = 0
    start = text.find(old)
    while start != -1 and count < _COUNT_LIMIT:
        count += 1
        start = text.find(old, start + 1)
    return count


def _not_unique(found: int, shown: str, text: str, old: str) -> str:
    if found == 0:
        hint = ""
        if "\r\n" in text and "\n" in old and "\r\n" not in old:
            hint = " (the file uses CRLF line endings)"
        return f"old text not found in {shown}{hint}; nothing was changed"
    times = f"at least {found}" if found >= _COUNT_LIMIT else str(found)
    return (
        f"old text occurs {times} times in {shown}; include more surrounding text so it "
        "occurs exactly once. Nothing was changed."
    )


EDIT_FILE = ToolSpec(
    name="edit_file",
    description=(
        "Replace an exact piece of text in a workspace file. 'old' must occur exactly once "
        "(copy it with its whitespace and enough context to be unique); otherwise nothing is "
        "changed and the error says how many times it occurs."
    ),
    args_model=EditFileArgs,
    risk=Risk.WRITE,
    run=run_edit_file,
)
