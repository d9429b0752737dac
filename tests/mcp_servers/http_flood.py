"""A streamable HTTP "server" written by hand (no SDK) on loopback: JSON answers only (no SSE),
and the tool ``big`` answers with N bytes of text (default 3 MB), ``deep`` with a result nested
200,000 levels, ``ping`` with "pong".

Usage: python -m tests.mcp_servers.http_flood PORT_FILE [N]
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 3_000_000
OBJECT = {"type": "object", "properties": {}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes = b"") -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(405)

    def do_DELETE(self) -> None:
        self._send(200)

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            self._send(202)
            return
        if method == "initialize":
            result: Any = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "http-flood", "version": "1"},
            }
        elif method == "tools/list":
            names = ("ping", "big", "deep")
            result = {"tools": [{"name": n, "inputSchema": OBJECT} for n in names]}
        elif method == "tools/call" and message["params"]["name"] == "big":
            result = {"content": [{"type": "text", "text": "y" * SIZE}]}
        elif method == "tools/call" and message["params"]["name"] == "deep":
            head = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[],"structuredContent":{"a":'
            depth = 200_000
            self._send(200, head % ident + b"[" * depth + b"]" * depth + b"}}}")
            return
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "pong"}]}
        else:
            result = {}
        self._send(200, json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode())


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Path(sys.argv[1]).write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
