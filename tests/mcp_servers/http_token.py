"""A streamable HTTP MCP server on loopback that wants ``Authorization: Bearer TOKEN``; its
tool ``whoami`` echoes the token back.

Usage: python -m tests.mcp_servers.http_token PORT_FILE TOKEN (it writes its port to PORT_FILE).
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.responses import PlainTextResponse


def main() -> None:
    port_file, token = sys.argv[1], sys.argv[2]
    server = MCPServer("http-token")

    @server.tool()
    def shout(text: str) -> str:
        """Upper-cases the text."""
        return text.upper()

    @server.tool()
    def whoami() -> str:
        """Echoes the token it was given (as a careless server would)."""
        return f"you sent the token {token}"

    app = server.streamable_http_app()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await PlainTextResponse("no", status_code=401)(scope, receive, send)
                return
        await app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    Path(port_file).write_text(str(sock.getsockname()[1]))
    config = uvicorn.Config(guarded, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
