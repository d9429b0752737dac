"""An MCP server's tool as a ToolSpec: strict schema validation, a risk the person chose, the
server's annotations kept as a claim to show, and a run function that calls the server."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, ClassVar

import mcp_types as types
from jsonschema.protocols import Validator
from pydantic import BaseModel, ConfigDict, model_validator

from ..tools.spec import Risk, ToolContext, ToolOutput, ToolSpec
from .config import McpServerConfig
from .naming import NamedTool
from .schema import describe_errors, provider_form, strict_validator

CallTool = Callable[[str, dict[str, Any]], Coroutine[Any, Any, ToolOutput]]


class McpArguments(BaseModel):
    """A call's arguments, exactly as parsed, once they passed the tool's input schema."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    validator: ClassVar[Validator]

    arguments: dict[str, Any]

    @model_validator(mode="before")
    @classmethod
    def _against_schema(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError("arguments must be a JSON object")
        problem = describe_errors(cls.validator, data)
        if problem is not None:
            raise ValueError(problem)
        return {"arguments": data}


def tool_risk(config: McpServerConfig, tool: types.Tool) -> Risk:
    """Read only when the person said so: ``read_only_tools``, or a trusted server's own hint.

    Anything else asks, whatever the server's annotations claim (a server can lie).
    """
    if tool.name in config.read_only_tools:
        return Risk.READ
    hints = tool.annotations
    if config.trusted and hints is not None and hints.read_only_hint is True:
        return Risk.READ
    return Risk.EXECUTE


def claims(server: str, tool: types.Tool) -> tuple[str, ...]:
    """The server's annotations as lines for the approval prompt, said to be its claim."""
    hints = tool.annotations
    if hints is None:
        return (f"MCP server {server!r} makes no claim about what this tool does",)
    said: list[str] = []
    for value, yes, no in (
        (hints.read_only_hint, "read-only", "not read-only"),
        (hints.destructive_hint, "destructive", "not destructive"),
        (hints.idempotent_hint, "idempotent", "not idempotent"),
        (hints.open_world_hint, "reaches the outside world", "closed world"),
    ):
        if value is not None:
            said.append(yes if value else no)
    title = f" (title {hints.title!r})" if hints.title else ""
    what = ", ".join(said) or "nothing about its effects"
    return (f"MCP server {server!r} claims{title}: {what} (unverified)",)


def tool_spec(
    named: NamedTool, tool: types.Tool, config: McpServerConfig, call: CallTool
) -> ToolSpec:
    """The ToolSpec for ``tool``; BadToolSchema when its input schema cannot be used."""
    validator = strict_validator(tool.input_schema)
    model = type(f"{named.name}_args", (McpArguments,), {"validator": validator})
    remote_name = tool.name

    async def run(args: Any, ctx: ToolContext) -> ToolOutput:
        assert isinstance(args, McpArguments)
        return await call(remote_name, args.arguments)

    description = tool.description or tool.title or f"{tool.name} (MCP server {named.server})"
    return ToolSpec(
        named.name,
        description,
        model,
        tool_risk(config, tool),
        run,
        input_schema=provider_form(tool.input_schema),
        claims=claims(named.server, tool),
    )
