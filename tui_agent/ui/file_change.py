"""What a write_file or edit_file call would change: a unified diff against the file as it is.

The current file is found the way the tools find it (``resolve_in_workspace``, no symlink
followed at the end, no FIFO opened) and read as UTF-8 text. When it cannot be read, the
change says why and carries what can still be shown: the new content, or the replaced text.
The tool itself checks everything again when it runs; this only shows what it would do.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass

from tui_agent.tools.file_access import describe_os_error, open_regular_file
from tui_agent.tools.sandbox import (
    MissingParentError,
    SandboxError,
    resolve_in_workspace,
    shown_path,
)
from tui_agent.tools.spec import ToolContext, ToolFailure
from tui_agent.tools.text_files import SNIFF_BYTES, looks_binary

# Larger files are not diffed (difflib is slow on them); the new content is shown instead.
MAX_DIFF_BYTES = 2 * 1024 * 1024
NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True)
class FileChange:
    """A diff when one could be made (``diff``), else the text to show instead (``content``).

    ``shown`` names the file as the user should read it; ``notes`` are plain sentences.
    """

    shown: str
    diff: str | None
    content: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Current:
    text: str | None  # None when the file could not be read
    shown: str
    exists: bool
    problem: str | None = None


def write_change(path: str, content: str, ctx: ToolContext) -> FileChange:
    """What ``write_file(path, content)`` would do to the file."""
    current = _read_current(path, ctx)
    if current.text is None:
        notes = (f"cannot show a diff: {current.problem}", "showing the new content in full")
        return FileChange(current.shown, None, content, notes)
    if not current.exists:
        diff = unified_diff("", content, "/dev/null", f"b/{current.shown}")
        return FileChange(current.shown, diff, notes=(f"new file {current.shown}",))
    if current.text == content:
        return FileChange(current.shown, "", notes=("the file already has exactly this content",))
    return FileChange(current.shown, _file_diff(current.text, content, current.shown))


def edit_change(path: str, old: str, new: str, ctx: ToolContext) -> FileChange:
    """What ``edit_file(path, old, new)`` would do; a fragment diff when it would refuse."""
    current = _read_current(path, ctx)
    fragment = unified_diff(old, new, "old", "new")
    if old == new:
        return FileChange(current.shown, fragment, notes=("old and new are the same",))
    if current.text is None or not current.exists:
        problem = current.problem or f"{current.shown}: no such file"
        notes = (f"cannot show a diff: {problem}", "showing the replaced text only")
        return FileChange(current.shown, fragment, notes=notes)
    found = _occurrences(current.text, old)
    if found != 1:
        times = "is not found" if found == 0 else f"occurs {found} times"
        notes = (
            f"the old text {times} in {current.shown}; the tool will refuse this edit",
            "showing the replaced text only",
        )
        return FileChange(current.shown, fragment, notes=notes)
    start = current.text.index(old)
    updated = current.text[:start] + new + current.text[start + len(old) :]
    return FileChange(current.shown, _file_diff(current.text, updated, current.shown))


def unified_diff(before: str, after: str, from_name: str, to_name: str) -> str:
    """A unified diff (3 lines of context) with git's marker for a missing final newline."""
    lines = difflib.unified_diff(
        _lines(before),
        _lines(after),
        fromfile=from_name,
        tofile=to_name,
    )
    return "".join(_with_end_markers(lines))


def _lines(text: str) -> list[str]:
    """Lines ending in "\\n" only (str.splitlines also splits at CR, FF, U+2028 and more)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _file_diff(before: str, after: str, shown: str) -> str:
    return unified_diff(before, after, f"a/{shown}", f"b/{shown}")


def _with_end_markers(lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield f"{line}\n{NO_NEWLINE}\n"


def _occurrences(text: str, old: str) -> int:
    """Occurrences of ``old``, overlapping ones included, counted as edit_file counts them."""
    count = 0
    start = text.find(old)
    while start != -1 and count < 100:
        count += 1
        start = text.find(old, start + 1)
    return count


def _read_current(path: str, ctx: ToolContext) -> _Current:
    try:
        target = resolve_in_workspace(path, ctx, for_write=True)
    except MissingParentError:
        return _Current("", path, exists=False)  # write_file creates the folders
    except SandboxError as exc:
        return _Current(None, path, exists=False, problem=str(exc))
    shown = shown_path(target, ctx)
    if not os.path.lexists(target):
        return _Current("", shown, exists=False)
    try:
        with open_regular_file(target, shown, ctx.workspace) as handle:
            data = handle.read(MAX_DIFF_BYTES + 1)
    except ToolFailure as exc:
        return _Current(None, shown, exists=True, problem=str(exc))
    except OSError as exc:
        return _Current(None, shown, exists=True, problem=describe_os_error(exc, shown))
    if len(data) > MAX_DIFF_BYTES:
        problem = f"{shown} is larger than {MAX_DIFF_BYTES // 2**20} MB"
        return _Current(None, shown, exists=True, problem=problem)
    if looks_binary(data[:SNIFF_BYTES]):
        return _Current(None, shown, exists=True, problem=f"{shown} looks like a binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _Current(None, shown, exists=True, problem=f"{shown} is not valid UTF-8")
    return _Current(text, shown, exists=True)
