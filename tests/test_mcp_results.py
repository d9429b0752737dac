"""A ``tools/call`` result as the model's text, for shapes a hostile server may send: deeply
nested JSON in a text block or in structured content must not fail the call."""

from __future__ import annotations

import mcp_types as types

from tui_agent.mcp.results import result_output

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
