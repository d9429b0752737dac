"""``tui-agent mcp list|add|remove``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from ..config import ConfigError, default_config_path, load_config, resolve_workspace
from ..config.mcp_save import add_server, remove_server
from ..config.secrets import workspace_variable_policy
from ..mcp.config import McpConfigError, McpServerConfig
from ..mcp.trust import trusted_workspace_servers, untrusted_workspace_servers
from ..text.sanitize import visible_line
from .exit_status import EXIT_OK, EXIT_USAGE


def main(args: argparse.Namespace) -> int:
    try:
        if args.mcp_action == "list":
            return asyncio.run(_list(args))
        if args.mcp_action == "add":
            return _add(args)
        return _remove(args)
    except (ConfigError, McpConfigError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail("interrupted")


def _fail(message: str) -> int:
    line = " ".join(part.strip() for part in message.splitlines() if part.strip())
    print(f"tui-agent mcp: {visible_line(line)}", file=sys.stderr)
    return EXIT_USAGE


def _add(args: argparse.Namespace) -> int:
    command = list(args.server_command)
    if command and command[0] == "--":
        command = command[1:]
    if (args.url is None) == (not command):
        return _fail("give either -- COMMAND ARGS... or --url URL (see tui-agent mcp add --help)")
    fields: dict[str, Any]
    if args.url is not None:
        if args.env:
            return _fail("--env is for command servers; an HTTP server takes --header")
        fields = {"url": args.url, "headers": _pairs(args.header, ":")}
    else:
        if args.header:
            return _fail("--header is for --url servers; a command server takes --env")
        fields = {"command": command[0], "args": command[1:], "env": _pairs(args.env, "=")}
    try:
        server = McpServerConfig.model_validate(fields)
    except ValueError as exc:
        return _fail(str(exc).splitlines()[-1] if str(exc) else "invalid server")
    path = default_config_path()
    add_server(path, args.name, server)
    print(f"added MCP server {args.name!r} to {path}; see its tools: tui-agent mcp list")
    return EXIT_OK


def _pairs(items: list[str], separator: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(separator)
        if not found or not key.strip():
            raise McpConfigError(f"{item!r} is not KEY{separator}VALUE")
        pairs[key.strip()] = value.strip() if separator == ":" else value
    return pairs


def _remove(args: argparse.Namespace) -> int:
    path = default_config_path()
    remove_server(path, args.name)
    print(f"removed MCP server {args.name!r} from {path}")
    return EXIT_OK


async def _list(args: argparse.Namespace) -> int:
    from ..mcp.servers import McpServers
    from ..wiring.setup import tool_registry

    config = load_config()
    workspace = resolve_workspace(config, args.workspace)
    configs = dict(config.mcp_servers)
    configs.update(trusted_workspace_servers(workspace, configs, workspace_variable_policy(config)))
    servers = McpServers(configs, workspace, config.settings.mcp_limits())
    servers.taken = frozenset(tool_registry(config).names())
    servers.start()
    try:
        await servers.wait_ready()
        shown = [_status_object(status) for status in servers.statuses()]
    finally:
        await servers.stop()
    untrusted = untrusted_workspace_servers(workspace)
    if untrusted is not None:
        for name, server in untrusted.servers.items():
            if name not in configs:
                why = f"declared in {untrusted.path.name}, not trusted yet (the app asks)"
                shown.append(_untrusted(name, server, why))
    if args.json:
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    else:
        _print_table(shown, Path(default_config_path()))
    return EXIT_OK


def _status_object(status: Any) -> dict[str, Any]:
    return {
        "name": status.name,
        "transport": status.transport,
        "status": status.status if status.status != "stopped" else "failed",
        "tools": [{"name": tool.name, "risk": tool.risk} for tool in status.tools],
        "error": status.error,
    }


def _untrusted(name: str, server: McpServerConfig, why: str) -> dict[str, Any]:
    return {
        "name": name,
        "transport": server.transport,
        "status": "disabled",
        "tools": [],
        "error": why,
    }


def _print_table(shown: list[dict[str, Any]], config_path: Path) -> None:
    if not shown:
        print(f"no MCP servers; add one: tui-agent mcp add NAME -- COMMAND ARGS ({config_path})")
        return
    for server in shown:
        print(visible_line(f"{server['name']} ({server['transport']}): {server['status']}"))
        if server["error"]:
            print(visible_line(f"  error: {server['error']}"))
        for tool in server["tools"]:
            print(visible_line(f"  {tool['name']}  [{tool['risk']}]"))
