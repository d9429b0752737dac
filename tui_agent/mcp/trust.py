"""Which workspaces' ``.mcp.json`` the person trusted, by keypress, after seeing the commands.

The record is the file's SHA-256 per workspace folder, in the app's data folder: an edited file
is not trusted until it was shown and accepted again. ``tui-agent run`` never asks.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from pathlib import Path

from ..session.paths import data_dir, ensure_private_dir
from .config import McpConfigError, McpServerConfig
from .workspace_file import WorkspaceServers, read_workspace_servers

TRUST_FILE = "trusted_mcp_workspaces.json"
_log = logging.getLogger("tui_agent.mcp")


def _trust_path() -> Path:
    return data_dir() / TRUST_FILE


def _read() -> dict[str, str]:
    try:
        value = json.loads(_trust_path().read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}


def is_trusted(declared: WorkspaceServers, workspace: Path) -> bool:
    return _read().get(str(workspace)) == declared.digest


def trust(declared: WorkspaceServers, workspace: Path) -> None:
    """Remember that the person trusted exactly this file for this workspace."""
    known = _read()
    known[str(workspace)] = declared.digest
    folder = ensure_private_dir(data_dir())
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".trust-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(known, out, indent=1, sort_keys=True)
        os.replace(temp, _trust_path())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def trusted_workspace_servers(
    workspace: Path, exclude: dict[str, McpServerConfig]
) -> dict[str, McpServerConfig]:
    """The workspace's servers when its ``.mcp.json`` is trusted as it is now; else none.

    Names already in config.toml are left out (the person's own declaration wins).
    """
    try:
        declared = read_workspace_servers(workspace)
    except McpConfigError as exc:
        _log.warning("%s", exc)
        return {}
    if declared is None or not is_trusted(declared, workspace):
        return {}
    return {name: cfg for name, cfg in declared.servers.items() if name not in exclude}


def untrusted_workspace_servers(workspace: Path) -> WorkspaceServers | None:
    """The workspace's ``.mcp.json`` when it declares servers the person has not trusted yet."""
    try:
        declared = read_workspace_servers(workspace)
    except McpConfigError:
        return None
    if declared is None or not declared.servers or is_trusted(declared, workspace):
        return None
    return declared
