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


def sleep_mark() -> str:
    """A sleep length no other test process uses: ``sleep MARK`` is found by its command line.

    Commands run in the sandbox's PID namespace, where ``$$`` is a PID of that namespace, not
    one this test can look up; the command line is seen the same from outside.
    """
    return f"{30 + os.getpid() % 997 / 1000:.3f}"


def outer_pgid_of_sleep(mark: str) -> int | None:
    """The process group (as seen here) of the live ``sleep MARK`` process, if there is one."""
    found = find_sleep(mark)
    return found[1] if found else None


def find_sleep(mark: str) -> tuple[int, int] | None:
    """PID and process group (as seen here) of the live ``sleep MARK`` process, if any."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if argv[:2] == [b"sleep", mark.encode()]:
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] not in ("Z", "X"):
                return int(entry), int(fields[2])
    return None
