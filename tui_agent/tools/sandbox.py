"""Keep file tools inside the workspace and out of the app's own directories.

Paths are checked after resolving every symlink (``os.path.realpath``) and compared by path
components, never by string prefix, so ``/ws2`` is not inside ``/ws``. Relative paths are
relative to the workspace; absolute ones are allowed only when they resolve inside it. ``~`` is
not expanded and is refused, so a model cannot mistake it for a home directory.

The checks are made when a call starts. The tools then open what was checked through folder
descriptors with ``O_NOFOLLOW`` (``file_access.py``), so a folder or file swapped for a symlink
between check and use is refused, not followed.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePath

from .spec import ToolContext


class SandboxError(Exception):
    """A path a tool may not touch; the message says which and why."""


class MissingParentError(SandboxError):
    """A file to write whose folder does not exist yet (``write_file`` may create it)."""


def resolve_in_workspace(path: str, ctx: ToolContext, *, for_write: bool = False) -> Path:
    """The real path ``path`` names inside the workspace, or ``SandboxError``.

    With ``for_write`` the file may not exist yet: its parent must exist and resolve inside,
    and the final component must not be a symlink (writing would follow or replace the link).
    """
    if not path:
        raise SandboxError("path is empty; use '.' for the workspace itself")
    if "\0" in path:
        raise SandboxError(f"path {path!r} contains a NUL character")
    if path.startswith("~"):
        raise SandboxError(
            f"path {path!r} starts with '~'; home directories are not expanded, "
            "use a path relative to the workspace"
        )
    workspace = Path(os.path.realpath(ctx.workspace))
    lexical = Path(os.path.normpath(workspace / path))
    if not lexical.is_relative_to(workspace):
        raise SandboxError(f"path {path!r} is outside the workspace")
    if not for_write:
        return _checked(Path(os.path.realpath(lexical)), path, workspace, ctx)
    name = PurePath(path).name
    if name in ("", ".", "..") or path.endswith(("/", "/.", "/..")):
        raise SandboxError(f"path {path!r} does not name a file")
    parent = Path(os.path.realpath(lexical.parent))
    _checked(parent, path, workspace, ctx)
    if not parent.is_dir():
        raise MissingParentError(f"the folder of {path!r} does not exist")
    target = parent / lexical.name
    if target.is_symlink():
        raise SandboxError(f"path {path!r} is a symbolic link; refusing to write through it")
    return _checked(target, path, workspace, ctx)


def is_protected(real_path: Path, ctx: ToolContext) -> bool:
    """True when a resolved path is one of the app's own directories or inside one (and not
    inside one of ``ctx.unprotected``)."""
    if any(real_path.is_relative_to(os.path.realpath(p)) for p in ctx.unprotected):
        return False
    return any(real_path.is_relative_to(os.path.realpath(p)) for p in ctx.protected)


def shown_path(real_path: Path, ctx: ToolContext) -> str:
    """A resolved path as the model should see it: relative to the workspace, '/'-separated."""
    workspace = Path(os.path.realpath(ctx.workspace))
    try:
        relative = real_path.relative_to(workspace)
    except ValueError:
        return real_path.name
    return relative.as_posix() if relative.parts else "."


def workspace_relative(path: str, ctx: ToolContext) -> str | None:
    """The workspace-relative path a write of ``path`` lands on (as write_file resolves it, its
    folder perhaps not made yet); None outside the workspace or for the workspace itself."""
    root = Path(os.path.realpath(ctx.workspace))
    try:
        target = resolve_in_workspace(path, ctx, for_write=True)
    except MissingParentError:
        lexical = Path(os.path.normpath(root / path))
        target = Path(os.path.realpath(lexical.parent)) / lexical.name
    except SandboxError:
        return None
    try:
        rel = target.relative_to(root).as_posix()
    except ValueError:
        return None
    return rel if rel not in ("", ".") else None


def _checked(real: Path, original: str, workspace: Path, ctx: ToolContext) -> Path:
    if not real.is_relative_to(workspace):
        raise SandboxError(f"path {original!r} leads outside the workspace through a symlink")
    if is_protected(real, ctx):
        raise SandboxError(f"path {original!r} is in the app's own files; tools may not touch them")
    return real
