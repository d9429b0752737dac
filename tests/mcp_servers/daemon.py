"""An MCP server that leaves a daemon behind: at start it double-forks a ``setsid`` grandchild
(its parent exits at once, so it belongs to no process group the server has) and writes
``SERVER_PID DAEMON_PID`` to MARK_DIR/pids.

With ``stubborn``, the server ignores SIGTERM and, once its stdin closed, goes on running.

Usage: python -m tests.mcp_servers.daemon [stubborn]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

DAEMON = """
import os, sys, time
os.setsid()
if os.fork():
    os._exit(0)
with open(sys.argv[1], "w") as out:
    out.write(str(os.getpid()))
time.sleep(600)
"""


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    obj: dict[str, Any] = {"type": "object", "properties": {}}
    return types.ListToolsResult(tools=[types.Tool(name="ping", input_schema=obj)])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])


def _start_daemon(marks: Path) -> int:
    spot = marks / "daemon"
    subprocess.run(
        [sys.executable, "-c", DAEMON, str(spot)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    for _ in range(500):
        if spot.exists() and spot.read_text():
            return int(spot.read_text())
        time.sleep(0.01)
    raise SystemExit("the daemon did not start")


async def main(stubborn: bool) -> None:
    marks = Path(os.environ["MARK_DIR"])
    if stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    daemon = _start_daemon(marks)
    (marks / "pids.tmp").write_text(f"{os.getpid()} {daemon}")
    os.replace(marks / "pids.tmp", marks / "pids")
    server: Server[Any] = Server("daemon", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
    if stubborn:
        while True:
            time.sleep(60)


if __name__ == "__main__":
    anyio.run(main, "stubborn" in sys.argv[1:])
