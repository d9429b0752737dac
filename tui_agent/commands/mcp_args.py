"""The ``tui-agent mcp`` command line: list, add and remove MCP servers in config.toml."""

from __future__ import annotations

import argparse
from typing import Any


def add_mcp_command(commands: Any) -> argparse.ArgumentParser:
    """Add ``mcp`` (with ``list``, ``add``, ``remove``) to the root parser's subparsers."""
    mcp: argparse.ArgumentParser = commands.add_parser(
        "mcp",
        help="list, add or remove MCP tool servers",
        description="MCP servers give the model more tools; every call is validated and asked "
        "for like any other. Servers live in config.toml as [mcp_servers.NAME].",
    )
    actions = mcp.add_subparsers(dest="mcp_action", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list",
        help="start each server, show its status and tools, stop it",
        description="Start every configured server (and a trusted workspace .mcp.json's), "
        "wait up to each one's startup_timeout, and show name, transport, status "
        "(ready, failed, disabled), the tools as the model sees them with their risk, and "
        "the error of a failed server. Exit status 0, or 1 on a configuration error.",
    )
    listing.add_argument(
        "--json",
        action="store_true",
        help="a JSON array of objects: name, transport, status, tools ([{name, risk}]), error",
    )
    listing.add_argument("--workspace", metavar="DIR", help="the workspace (for .mcp.json)")
    add = actions.add_parser(
        "add",
        help="add a server: mcp add NAME -- COMMAND ARGS... or mcp add NAME --url URL",
        description="Add [mcp_servers.NAME] to config.toml, keeping the rest of the file.",
        usage="tui-agent mcp add NAME [--env K=V]... -- COMMAND [ARGS...]\n"
        "       tui-agent mcp add NAME --url URL [--header 'K: V']...",
    )
    add.add_argument("name", metavar="NAME")
    add.add_argument("--url", metavar="URL", help="a streamable HTTP server")
    add.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'K: V'",
        help="an HTTP header (values may name ${VAR})",
    )
    add.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="an environment variable for the command (values may name ${VAR})",
    )
    add.add_argument("server_command", nargs="*", metavar="-- COMMAND ARGS")
    remove = actions.add_parser("remove", help="remove [mcp_servers.NAME] from config.toml")
    remove.add_argument("name", metavar="NAME")
    return mcp
