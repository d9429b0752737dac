"""A workspace's own ``.tui-agent/hooks.toml``: ``[[hooks]]`` tables a repository declares.

Such a file comes with the code, not from the person: nothing in it runs until the person trusted
that exact file's content (``workspace_trust.py``, asked with the rest of the workspace's own
content), a hook of it can never approve a call ("allow" is not taken), and it may not run
outside the command sandbox (``unconfined`` is refused).
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..workspace_trust import inside_workspace
from .config import HookConfig
from .listing import hook_line
from .runner import DeclaredHook

FILE_NAME = ".tui-agent/hooks.toml"
MAX_FILE_BYTES = 64 * 1024


class WorkspaceHooksError(Exception):
    """The file cannot be used; the message says why (shown, never run)."""


@dataclass(frozen=True)
class WorkspaceHooks:
    path: Path
    digest: str  # SHA-256 of the file's bytes: what trust binds
    hooks: tuple[DeclaredHook, ...]

    def describe(self) -> list[str]:
        """Every hook whole, for the trust question."""
        return [f"    {hook_line(hook)}" for hook in self.hooks]


def read_workspace_hooks(workspace: Path) -> WorkspaceHooks | None:
    """The workspace's hooks.toml, None when there is none; WorkspaceHooksError when it cannot
    be used (outside the workspace, too large, not TOML, a bad table, ``unconfined``)."""
    path = workspace / FILE_NAME
    if not path.is_file():
        return None
    if not inside_workspace(path, workspace):
        raise WorkspaceHooksError(f"{path} leads outside the workspace (a symlink): refused")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise WorkspaceHooksError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise WorkspaceHooksError(f"{path} is over {MAX_FILE_BYTES // 1024} KiB: refused")
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise WorkspaceHooksError(f"{path} is not valid TOML: {exc}") from None
    unknown = set(document) - {"hooks"}
    if unknown:
        raise WorkspaceHooksError(f"{path}: only [[hooks]] tables, not {sorted(unknown)}")
    tables = document.get("hooks", [])
    if not isinstance(tables, list):
        raise WorkspaceHooksError(f"{path}: hooks must be [[hooks]] tables")
    hooks: list[DeclaredHook] = []
    for index, table in enumerate(tables):
        try:
            config = HookConfig.model_validate(table)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            message = str(first["msg"]).removeprefix("Value error, ")
            raise WorkspaceHooksError(f"{path}: hooks[{index}].{where}: {message}") from None
        if config.unconfined:
            raise WorkspaceHooksError(
                f"{path}: hooks[{index}] asks to run unconfined; a workspace's hooks always "
                "run in the command sandbox"
            )
        hooks.append(DeclaredHook(config, "workspace", FILE_NAME))
    return WorkspaceHooks(path, hashlib.sha256(data).hexdigest(), tuple(hooks))
