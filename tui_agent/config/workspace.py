"""Which directory the tools work in."""

from __future__ import annotations

from pathlib import Path

from .errors import WorkspaceError
from .model import Config


def resolve_workspace(
    config: Config, workspace: str | None = None, *, cwd: Path | None = None
) -> Path:
    """The workspace: --workspace, else settings.workspace, else the current directory.

    A relative path is taken from ``cwd``; ``~`` is expanded; the result is absolute.
    """
    chosen = workspace if workspace is not None else config.settings.workspace
    base = cwd if cwd is not None else Path.cwd()
    path = base if chosen is None else base / Path(chosen).expanduser()
    if not path.is_dir():
        raise WorkspaceError(f"workspace {path} does not exist or is not a directory")
    return path.resolve()
