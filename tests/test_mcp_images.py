"""An MCP tool's image content reaches the model as an image (checked and scaled like any
other), never dropped and never dumped as base64 text; one that cannot be sent is named."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

from tui_agent.mcp.config import McpServerConfig
from tui_agent.mcp.servers import McpServers
from tui_agent.stream.turn import ToolCall
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import ToolContext, ToolOutput
from tui_agent.tools.validation import ValidatedCall, validate_call

from .mcp_servers.images import TINY

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parent.parent


async def _run(registry: ToolRegistry, name: str, ctx: ToolContext) -> ToolOutput:
    checked = validate_call(registry, ToolCall("c", f"mcp__images__{name}", "{}"))
    assert isinstance(checked, ValidatedCall), checked
    return await checked.spec.run(checked.args, ctx)


async def test_image_results_reach_the_model_as_images(tmp_path: Path) -> None:
    config = McpServerConfig.model_validate(
        {
            "command": sys.executable,
            "args": ["-m", "tests.mcp_servers.images"],
            "env": {"PYTHONPATH": str(ROOT)},
            "read_only_tools": ["tiny", "huge", "broken", "ugly"],
        }
    )
    servers = McpServers({"images": config}, tmp_path)
    servers.start()
    await servers.wait_ready()
    ctx = ToolContext(workspace=tmp_path)
    try:
        registry = ToolRegistry(servers.tool_specs())
        tiny = await _run(registry, "tiny", ctx)
        assert not tiny.is_error and len(tiny.images) == 1
        assert tiny.images[0].data == TINY and (tiny.images[0].width, tiny.images[0].height) == (
            4,
            3,
        )
        assert tiny.text.startswith("This is a tiny image:\n[image: image/png, ")
        assert "attached as PNG 4x3" in tiny.text
        assert base64.b64encode(TINY).decode()[:20] not in tiny.text
        huge = await _run(registry, "huge", ctx)
        (scaled,) = huge.images
        assert scaled.scaled and (scaled.width, scaled.height) == (1568, 784)
        assert "scaled down to fit" in huge.text
        broken = await _run(registry, "broken", ctx)
        assert broken.images == () and "not sent: the tool's image is not an image" in broken.text
        ugly = await _run(registry, "ugly", ctx)
        assert ugly.images == () and "not sent: its data is not base64" in ugly.text
    finally:
        await servers.stop()
