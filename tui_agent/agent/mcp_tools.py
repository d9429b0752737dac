"""MCP servers wired to an Agent: started with the session, their tools offered from the next
request on whenever the set changes, stopped when the session closes.

The MCP SDK takes a second or more to import: it is imported only when a server is configured.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config
from ..logs import add_log_secret
from ..mcp.config import McpServerConfig
from ..mcp.limits import McpLimits
from ..mcp.trust import trusted_workspace_servers
from ..mcp.workspace_file import VariablePolicy
from ..providers import ToolSchema
from ..session import Redactor
from ..tools.registry import ToolRegistry
from .events import Notice
from .loop import Agent

if TYPE_CHECKING:
    from ..mcp.servers import McpEvent, McpServers


def attach_servers(
    agent: Agent,
    configs: dict[str, McpServerConfig],
    workspace: Path,
    redactor: Redactor | None = None,
    limits: McpLimits | None = None,
) -> McpServers:
    """Servers for ``configs``, wired to ``agent``'s tools (not started yet). The values their
    ``${VAR}``s were read from are redacted from the log and by ``redactor`` (the session's)."""
    from ..mcp.servers import McpServers

    servers = McpServers(configs, workspace, limits)
    base = list(agent.calls.registry)
    servers.taken = frozenset(spec.name for spec in base)

    def refresh(event: McpEvent) -> None:
        if event.kind != "changed":
            return
        secrets = servers.secrets()
        for secret in secrets:
            add_log_secret(secret)
        if redactor is not None:
            redactor.add(secrets)
        registry = ToolRegistry([*base, *servers.tool_specs()])
        agent.calls.registry = registry
        agent.tools = [ToolSchema(n, d, s) for n, d, s in registry.schemas()]

    servers.listen(refresh)
    return servers


async def start_mcp(
    agent: Agent,
    config: Config,
    workspace: Path,
    notices: list[Notice],
    *,
    wait: bool,
    policy: VariablePolicy,
    redactor: Redactor | None = None,
    trust_workspace: bool = False,
) -> McpServers | None:
    """Start the config's servers (and a trusted workspace's, or with ``trust_workspace`` the
    workspace's as it is now, each only if ``policy`` lets it send what it names); None when
    there are none.

    With ``wait``, their notices until every server settled are added to ``notices``; without,
    listen with ``replay=True`` to get them.
    """
    configs = dict(config.mcp_servers)
    configs.update(trusted_workspace_servers(workspace, configs, policy, trusted=trust_workspace))
    if not configs:
        return None
    servers = attach_servers(agent, configs, workspace, redactor, config.settings.mcp_limits())
    servers.start()
    if wait:
        await servers.wait_ready()
        notices += [Notice(event.text, event.level) for event in servers.history]
    return servers
