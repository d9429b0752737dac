"""Shared helpers for the tools tests: a workspace context and process-group inspection."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tui_agent.stream.turn import ToolCall
from tui_agent.tools import InvalidCall, ToolContext, ToolOutput, ToolRegistry, ValidatedCall
from tui_agent.tools.validation import validate_call


def make_context(root: Path, **overrides: Any) -> ToolContext:
    workspace = root / "ws"
    workspace.mkdir(exist_ok=True)
    return ToolContext(workspace=workspace.resolve(), **overrides)


def validated(registry: ToolRegistry, name: str, arguments: str) -> ValidatedCall:
    result = validate_call(registry, ToolCall(id="call_1", name=name, arguments=arguments))
    assert isinstance(result, ValidatedCall), result
    return result


def invalid(registry: ToolRegistry, name: str, arguments: str) -> str:
    result = validate_call(registry, ToolCall(id="call_1", name=name, arguments=arguments))
    assert isinstance(result, InvalidCall), result
    return result.error


async def call(registry: ToolRegistry, ctx: ToolContext, name: str, arguments: str) -> ToolOutput:
    checked = validated(registry, name, arguments)
    return await checked.spec.run(checked.args, ctx)


def live_members(pgid: int) -> list[int]:
    """Processes of the group that still run (zombies, already dead, do not count)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, group = fields[0], int(fields[2])
        if group == pgid and state not in ("Z", "X"):
            members.append(int(entry))
    return members
