"""The name the model sees for a server's tool: ``mcp__SERVER__TOOL``, safe for every provider."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

PREFIX = "mcp__"
MAX_NAME = 64  # the strictest provider's limit (OpenAI)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def model_tool_name(server: str, tool: str) -> str:
    """``mcp__SERVER__TOOL`` with characters outside [A-Za-z0-9_-] replaced by '_', cut to 64."""
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    return name[:MAX_NAME]


@dataclass(frozen=True)
class NamedTool:
    server: str
    tool: str
    name: str  # what the model sees


@dataclass(frozen=True)
class NameClash:
    """Two tools that would reach the model under one name; neither is offered."""

    name: str
    first: str  # "server 'a' tool 'x'" or "the built-in or user tool"
    second: str

    def describe(self) -> str:
        return f"tool name {self.name!r} is claimed by both {self.first} and {self.second}"


def name_tools(
    tools: Iterable[tuple[str, str]], taken: Iterable[str] = ()
) -> tuple[list[NamedTool], list[NameClash]]:
    """Name each (server, tool); a name used twice (or already ``taken``) is a clash."""
    reserved = set(taken)
    by_name: dict[str, list[NamedTool]] = {}
    for server, tool in tools:
        named = NamedTool(server, tool, model_tool_name(server, tool))
        by_name.setdefault(named.name, []).append(named)
    kept: list[NamedTool] = []
    clashes: list[NameClash] = []
    for name, group in by_name.items():
        if name in reserved:
            clashes.append(NameClash(name, "a built-in or user tool", _who(group[0])))
        elif len(group) > 1:
            clashes.append(NameClash(name, _who(group[0]), _who(group[1])))
        else:
            kept.append(group[0])
    return kept, clashes


def _who(named: NamedTool) -> str:
    return f"server {named.server!r} tool {named.tool!r}"
