"""What each request offers the model, recorded in the session when it changes: the tool names
and a hash of each one's description and schema (MCP servers can change their tools).

A request with no ``tools`` record before it offered the built-in and user tools the Agent was
built with; that list is not recorded, so sessions without MCP servers stay as they were.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..providers import ToolSchema
from ..session.records import OfferedTool, ToolListRecord
from ..tools.arguments import arguments_digest
from .recorder import SessionRecorder


def offered(tools: Sequence[ToolSchema]) -> list[OfferedTool]:
    return [OfferedTool(name=name, schema_hash=digest) for name, digest in _digests(tools)]


def _digests(tools: Sequence[ToolSchema]) -> tuple[tuple[str, str], ...]:
    """Each tool's name and the hash of its description and schema, as ``offered`` records."""
    return tuple(
        (
            tool.name,
            arguments_digest({"description": tool.description, "parameters": tool.parameters}),
        )
        for tool in tools
    )


class ToolListLog:
    """Appends a ``tools`` record before a request whose tool list differs from the last one.

    The lists are compared as plain (name, hash) pairs: the record's models are made only for a
    record (their schemas are built at first use, which the session's opening then skips)."""

    def __init__(self, baseline: Sequence[ToolSchema]) -> None:
        self._last = _digests(baseline)

    def before_request(self, recorder: SessionRecorder, tools: Sequence[ToolSchema]) -> None:
        current = _digests(tools)
        if current != self._last:
            self._last = current
            listed = [OfferedTool(name=name, schema_hash=digest) for name, digest in current]
            recorder.append(ToolListRecord(ts=time.time(), tools=listed), sync=True)
