"""Which workspaces' ``.mcp.json`` the person trusted, by keypress, after seeing the servers.

Trust is the file's SHA-256 per workspace folder (``workspace_trust.py``, the one store for a
workspace's content): an edited file is not trusted until it was shown and accepted again. Even a
trusted file's server does not start when it names a variable it may not send (``VariablePolicy``).
``tui-agent run`` never asks.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..workspace_trust import is_trusted as _is_trusted
from ..workspace_trust import trust as _trust
from .config import McpConfigError, McpServerConfig
from .workspace_file import VariablePolicy, WorkspaceServers, read_workspace_servers

KIND = "mcp"
_log = logging.getLogger("tui_agent.mcp")


def is_trusted(declared: WorkspaceServers, workspace: Path) -> bool:
    return _is_trusted(workspace, KIND, declared.digest)


def trust(declared: WorkspaceServers, workspace: Path) -> None:
    """Remember that the person trusted exactly this file for this workspace."""
    _trust(workspace, {KIND: declared.digest})


def startable(
    declared: WorkspaceServers, policy: VariablePolicy, exclude: dict[str, McpServerConfig]
) -> dict[str, McpServerConfig]:
    """The servers of a trusted file that may start: not named in config.toml (the person's own
    declaration wins) and naming no variable the policy refuses (each refusal is logged)."""
    refused = declared.refused(policy)
    for name, why in refused.items():
        _log.warning("MCP server %r of %s not started: %s", name, declared.path, why)
    return {
        name: cfg
        for name, cfg in declared.servers.items()
        if name not in exclude and name not in refused
    }


def trusted_workspace_servers(
    workspace: Path,
    exclude: dict[str, McpServerConfig],
    policy: VariablePolicy,
    *,
    trusted: bool = False,
) -> dict[str, McpServerConfig]:
    """The workspace's servers that may start when its ``.mcp.json`` is trusted as it is now
    (or ``trusted``: the person said so for this run); else none."""
    try:
        declared = read_workspace_servers(workspace)
    except McpConfigError as exc:
        _log.warning("%s", exc)
        return {}
    if declared is None or not (trusted or is_trusted(declared, workspace)):
        return {}
    return startable(declared, policy, exclude)


def untrusted_workspace_servers(workspace: Path) -> WorkspaceServers | None:
    """The workspace's ``.mcp.json`` when it declares servers the person has not trusted yet."""
    try:
        declared = read_workspace_servers(workspace)
    except McpConfigError:
        return None
    if declared is None or not declared.servers or is_trusted(declared, workspace):
        return None
    return declared
