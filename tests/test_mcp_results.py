"""Deeply nested JSON from MCP's untrusted sides: a server's ``tools/call`` result (a text block
or structured content) must not fail the call, a workspace's .mcp.json must not stop the app."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest

from tui_agent.mcp.config import McpConfigError
from tui_agent.mcp.results import result_output
from tui_agent.mcp.workspace_file import read_workspace_servers

DEEP = "[" * 100_000 + "]" * 100_000


def test_deeply_nested_text_beside_structured_content_is_shown_as_text() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text=DEEP)], structured_content={"a": 1}
    )
    output = result_output(result)
    assert output.text.startswith("[[[") and '"a": 1' in output.text
    assert not output.is_error


def test_deeply_nested_structured_content_is_named_not_shown() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    result = types.CallToolResult.model_construct(content=[], structured_content={"d": deep})
    assert result_output(result).text == "(nested too deeply to show)"


def test_a_workspace_mcp_json_nested_too_deeply_is_a_clear_config_error(tmp_path: Path) -> None:
    """A cloned repository's .mcp.json is untrusted input: 10,000 brackets once raised
    RecursionError out of reading it (the app could not start in that folder)."""
    (tmp_path / ".mcp.json").write_text('{"mcpServers": ' + "[" * 10_000 + "]" * 10_000 + "}")
    with pytest.raises(McpConfigError, match="nested too deeply"):
        read_workspace_servers(tmp_path)


def test_a_workspace_server_whose_type_is_a_list_is_a_clear_config_error(tmp_path: Path) -> None:
    """An unhashable ``type`` once raised TypeError out of reading the file."""
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"web": {"type": ["http"], "url": "x"}}}')
    with pytest.raises(McpConfigError, match="has type"):
        read_workspace_servers(tmp_path)
