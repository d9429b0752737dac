"""The registry, tool specs and the provider schema of nested argument models."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel, ConfigDict, Field

from tui_agent.tools import (
    DuplicateToolError,
    Risk,
    ToolContext,
    ToolOutput,
    ToolRegistry,
    ToolSpec,
    builtin_registry,
)


class Point(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    x: int = Field(description="across")
    title: str = Field("", description="a property named like a schema keyword")


class Shape(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    points: list[Point] = Field(description="corners")
    origin: Point | None = Field(None, description="where it starts")


async def noop(args: object, ctx: ToolContext) -> ToolOutput:
    return ToolOutput("ok")


def make_spec(name: str) -> ToolSpec:
    return ToolSpec(name, "draws", Shape, Risk.READ, noop)


def test_nested_models_are_inlined_without_clutter() -> None:
    point = {
        "type": "object",
        "properties": {
            "x": {"type": "integer", "description": "across"},
            "title": {
                "type": "string",
                "default": "",
                "description": "a property named like a schema keyword",
            },
        },
        "required": ["x"],
        "additionalProperties": False,
    }
    assert make_spec("draw").parameters_schema() == {
        "type": "object",
        "properties": {
            "points": {"type": "array", "items": point, "description": "corners"},
            "origin": {**point, "description": "where it starts"},
        },
        "required": ["points"],
        "additionalProperties": False,
    }


def test_registry_lookup_order_and_schemas() -> None:
    registry = builtin_registry([make_spec("draw")])
    assert registry.names()[-1] == "draw"
    assert registry.get("draw") is not None
    assert registry.get("nope") is None
    assert [spec.name for spec in registry] == registry.names()
    assert [name for name, _, _ in registry.schemas()] == registry.names()
    risks = {spec.name: spec.risk for spec in registry}
    assert risks["read_file"] is Risk.READ and risks["list_dir"] is Risk.READ
    assert risks["search_text"] is Risk.READ
    assert risks["write_file"] is Risk.WRITE and risks["edit_file"] is Risk.WRITE
    assert risks["run_command"] is Risk.EXECUTE


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(DuplicateToolError, match="two tools are named 'read_file'"):
        builtin_registry([make_spec("read_file")])
    with pytest.raises(DuplicateToolError):
        ToolRegistry([make_spec("a"), make_spec("a")])


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "dotted.name", "ünï"])
def test_tool_names_providers_reject_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="invalid tool name"):
        make_spec(name)


def test_tools_layer_does_not_import_textual() -> None:
    code = (
        "import sys, tui_agent.tools, tui_agent.tools.builtin; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
