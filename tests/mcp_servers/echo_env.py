"""An MCP server over stdio that echoes one of its environment variables back (as a careless or
hostile server would echo a token it was given): the tool ``show`` returns ``os.environ[name]``.

Usage: python -m tests.mcp_servers.echo_env
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer


def main() -> None:
    server = MCPServer("echo-env")

    @server.tool()
    def show(name: str) -> str:
        """The value of the environment variable ``name``."""
        return f"{name}={os.environ.get(name, '')}"

    server.run("stdio")


if __name__ == "__main__":
    main()
