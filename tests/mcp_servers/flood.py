"""A stdio MCP server written by hand (no SDK), to send what the SDK would never let a server
send: one raw JSON-RPC loop, one mode per way a server can flood its client.

    python -m tests.mcp_servers.flood MODE [N]

Modes: ``many`` lists N tools (default 5,000); ``junk`` writes N bytes on one line before
anything else; ``hugeinit`` pads its initialize answer to N bytes; ``refs`` adds a tool whose
schema's definitions each use the one before twice, N levels (default 18). Every mode has the
tools ``ping``; ``deep`` (a result nested N levels, default 200,000); ``big`` (a result of N
bytes, default 5 MB, with the id last as TypeScript's SDK writes it); ``storm`` (announces a
changed tool list N times, default 200, 10 ms apart, adding the tool ``tK`` each time). Each
tools/list appends a line to MARK_DIR/lists when MARK_DIR is set.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "many"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 0
_lock = threading.Lock()
_added: list[str] = []
OBJECT = {"type": "object", "properties": {}}


def send(data: bytes | dict[str, Any]) -> None:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    with _lock:
        sys.stdout.buffer.write(raw + b"\n")
        sys.stdout.buffer.flush()


def tools() -> list[dict[str, Any]]:
    listed = [
        {"name": name, "description": f"The tool {name}.", "inputSchema": OBJECT}
        for name in ("ping", "deep", "big", "storm", *_added)
    ]
    if MODE == "many":
        schema = {"type": "object", "properties": {"q": {"type": "string"}}}
        listed += [
            {"name": f"tool_{i}", "description": f"Tool number {i}.", "inputSchema": schema}
            for i in range(N or 5000)
        ]
    if MODE == "refs":
        levels = N or 18
        defs: dict[str, Any] = {"d0": {"type": "string"}}
        for level in range(1, levels + 1):
            below = {"$ref": f"#/$defs/d{level - 1}"}
            defs[f"d{level}"] = {"type": "object", "properties": {"a": below, "b": below}}
        schema = {
            "type": "object",
            "properties": {"x": {"$ref": f"#/$defs/d{levels}"}},
            "$defs": defs,
        }
        listed.append({"name": "refs", "description": "Doubling refs.", "inputSchema": schema})
    return listed


def storm(count: int) -> None:
    for index in range(count):
        time.sleep(0.01)
        _added.append(f"t{index}")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def answer(ident: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": ident, "result": result})


def text(ident: Any, value: str) -> None:
    answer(ident, {"content": [{"type": "text", "text": value}]})


def call(ident: Any, name: str) -> None:
    if name == "deep":
        depth = N or 200_000
        head = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[],"structuredContent":{"a":' % ident
        send(head + b"[" * depth + b"]" * depth + b"}}}")
    elif name == "big":
        size = N or 5_000_000
        body = b'{"result":{"content":[{"type":"text","text":"' + b"y" * size + b'"}]},'
        send(body + b'"jsonrpc":"2.0","id":%d}' % ident)
    elif name == "storm":
        threading.Thread(target=storm, args=(N or 200,), daemon=True).start()
        text(ident, "storming")
    else:
        text(ident, "pong")


def main() -> None:
    marks = os.environ.get("MARK_DIR")
    if MODE == "junk":
        send(b"x" * (N or 48_000_000))
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "flood", "version": "1"},
            }
            if MODE == "hugeinit":
                result["instructions"] = "z" * (N or 5_000_000)
            answer(ident, result)
        elif method == "tools/list":
            if marks:
                with open(os.path.join(marks, "lists"), "a") as out:
                    out.write("list\n")
            answer(ident, {"tools": tools()})
        elif method == "tools/call":
            call(ident, message["params"]["name"])
        elif ident is not None and method is not None:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": method}})


if __name__ == "__main__":
    main()
