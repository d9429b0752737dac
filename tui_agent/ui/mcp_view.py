"""The app's side of MCP servers: their notices in the transcript, "MCP 2/3 ready" in the status
line, and the trust question for a workspace's .mcp.json."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .widgets.status_bar import StatusBar
from .widgets.transcript import Transcript

if TYPE_CHECKING:
    from ..mcp.servers import McpEvent, McpServers
    from ..mcp.workspace_file import WorkspaceServers
    from ..wiring.host import SessionHost
    from .shell import Shell


def attach_mcp(app: Shell, host: SessionHost) -> None:
    """Show the host's servers (started already): their notices, and "MCP n/m ready" (nothing
    when it has none)."""
    if host.mcp is not None:
        _watch(app, host.mcp)
    else:
        app.query_one(StatusBar).mcp = ""


def start_workspace_servers(app: Shell, host: SessionHost, declared: WorkspaceServers) -> None:
    """Start the servers of a workspace's ``.mcp.json`` the person just trusted (as shown)."""
    from ..agent.mcp_tools import attach_servers
    from ..config.secrets import workspace_variable_policy
    from ..mcp.trust import startable

    policy = workspace_variable_policy(host.config, host.profile.api_key_env)
    configs = startable(declared, policy, host.config.mcp_servers)
    refused = declared.refused(policy)
    for name, why in refused.items():
        text = f"{declared.path.name}: MCP server {name!r} not started: {why}"
        app.query_one(Transcript).add_notice(text, "warning")
    if not configs:
        return
    if host.mcp is None:
        limits = host.config.settings.mcp_limits()
        host.mcp = attach_servers(host.agent, configs, host.workspace, host.redactor, limits)
        _watch(app, host.mcp)
        host.mcp.start()
    else:
        for name, config in configs.items():
            if name not in host.mcp.connections:
                host.mcp.add(name, config)


def _watch(app: Shell, servers: McpServers) -> None:
    def shown(event: McpEvent) -> None:
        if getattr(app.host, "mcp", None) is not servers:
            servers.unlisten(shown)  # a session switched away from: its servers are stopping
            return
        try:
            status = app.query_one(StatusBar)
            transcript = app.query_one(Transcript)
        except Exception:  # the app is closing
            return
        if event.kind == "notice":
            transcript.add_notice(event.text, event.level)
        status.mcp = servers.summary()

    servers.listen(shown, replay=True)
    app.query_one(StatusBar).mcp = servers.summary()
