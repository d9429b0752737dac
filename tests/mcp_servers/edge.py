"""An MCP server over stdio with one tool per edge case.

slow: writes MARK_DIR/started, sleeps; when the client cancels it, writes MARK_DIR/cancelled.
crash: exits mid-call.
huge: returns BYTES bytes of text. picture: an image and a resource. fails: isError.
bad: an input schema no validator accepts. count: needs an integer. grow: announces a new tool
(tools/list_changed). At start it writes its pid and a sleeping child's to MARK_DIR/pids.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

HUGE_BYTES = 3_000_000
_grown = False


def _tools() -> list[types.Tool]:
    obj: dict[str, Any] = {"type": "object", "properties": {}}
    tools = [
        types.Tool(name="slow", description="Sleeps for a minute.", input_schema=obj),
        types.Tool(name="crash", description="Exits in the middle of the call.", input_schema=obj),
        types.Tool(name="huge", description="Returns a lot of text.", input_schema=obj),
        types.Tool(name="picture", description="An image and a resource.", input_schema=obj),
        types.Tool(name="fails", description="Always an error result.", input_schema=obj),
        types.Tool(
            name="bad",
            description="Its schema is not a schema.",
            input_schema={"type": "object", "properties": {"x": {"type": "no-such-type"}}},
        ),
        types.Tool(
            name="count",
            description="Counts to n.",
            input_schema={
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 1}},
                "required": ["n"],
                "additionalProperties": False,
            },
            annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False),
        ),
        types.Tool(name="grow", description="Adds the tool 'added'.", input_schema=obj),
    ]
    if _grown:
        tools.append(types.Tool(name="added", description="Added later.", input_schema=obj))
    return tools


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_tools())


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    global _grown
    name = params.name
    if name == "slow":
        Path(os.environ["MARK_DIR"], "started").write_text("yes")
        try:
            await anyio.sleep(60)
        except anyio.get_cancelled_exc_class():
            Path(os.environ["MARK_DIR"], "cancelled").write_text("yes")
            raise
        return _text("woke up")
    if name == "crash":
        print("about to crash: goodbye", file=sys.stderr, flush=True)
        os._exit(3)
    if name == "huge":
        return _text("x" * HUGE_BYTES)
    if name == "picture":
        png = base64.b64encode(b"\x89PNG" + b"\0" * 1000).decode()
        resource = types.TextResourceContents(
            uri="file:///notes.txt", mime_type="text/plain", text="hello"
        )
        return types.CallToolResult(
            content=[
                types.ImageContent(type="image", data=png, mime_type="image/png"),
                types.EmbeddedResource(type="resource", resource=resource),
            ]
        )
    if name == "fails":
        return _text("it went wrong", error=True)
    if name == "count":
        n = (params.arguments or {})["n"]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=" ".join(map(str, range(1, n + 1))))],
            structured_content={"n": n},
        )
    if name == "grow":
        _grown = True
        await ctx.session.send_tool_list_changed()
        return _text("grown")
    return _text("called " + name)


async def main() -> None:
    marks = Path(os.environ["MARK_DIR"])
    # Its own output elsewhere: a child holding the server's stdout would hide the crash below
    # until tool_timeout (the client sees the exit as the end of stdout).
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    (marks / "pids").write_text(f"{os.getpid()} {child.pid}")
    server: Server[Any] = Server("edge", on_list_tools=list_tools, on_call_tool=call_tool)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
