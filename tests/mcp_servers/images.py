"""An MCP server over stdio whose tools return images, like the ``everything`` server's
get-tiny-image: tiny (a small PNG and text), huge (a PNG too large to send as it is), broken
(an image whose bytes are no image) and ugly (data that is not base64)."""

from __future__ import annotations

import base64
import zlib
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server


def _png(width: int, height: int) -> bytes:
    """A grey PNG made without any imaging library (the server needs none)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    rows = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


TINY = _png(4, 3)


def _image(data: bytes) -> types.ImageContent:
    return types.ImageContent(
        type="image", data=base64.b64encode(data).decode(), mime_type="image/png"
    )


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    obj: dict[str, Any] = {"type": "object", "properties": {}}
    names = ("tiny", "huge", "broken", "ugly")
    return types.ListToolsResult(
        tools=[
            types.Tool(name=name, description=f"A {name} image.", input_schema=obj)
            for name in names
        ]
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = types.TextContent(type="text", text="This is a tiny image:")
    if params.name == "tiny":
        content: list[Any] = [text, _image(TINY)]
    elif params.name == "huge":
        content = [_image(_png(4000, 2000))]
    elif params.name == "broken":
        content = [_image(b"\x89PNG\r\n\x1a\n" + b"\0" * 50)]
    else:
        content = [
            types.ImageContent(type="image", data="%%% not base64 %%%", mime_type="image/png")
        ]
    return types.CallToolResult(content=content)


async def main() -> None:
    server: Server[Any] = Server("images", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
