"""Nothing above the assembler sees a call's arguments before the terminal event is decoded."""

from __future__ import annotations

import dataclasses

import pytest

from tui_agent import TurnReader
from tui_agent.stream.assembler import TurnAssembler
from tui_agent.stream.events import ReasoningDelta, TextDelta, ToolArgumentsDelta, ToolCallStarted
from tui_agent.stream.progress import ToolArgumentsReceived, ToolCallAnnounced

from . import wire

MARKER = "SECRET-ARGUMENT-MARKER"
ARGS = '{"path":"' + MARKER + '","n":1}'
SAFE_TYPES = (TextDelta, ReasoningDelta, ToolCallAnnounced, ToolArgumentsReceived)


def _ops() -> list[wire.Op]:
    pieces = [ARGS[i : i + 3] for i in range(0, len(ARGS), 3)]
    ops: list[wire.Op] = [("text", "working on it"), ("call", 0, "c1", "read_file")]
    ops += [("args", 0, piece) for piece in pieces]
    return [*ops, ("close", 0)]


@pytest.mark.parametrize("protocol", list(wire.BUILDERS))
def test_an_instrumented_consumer_sees_arguments_only_after_the_terminal_event(
    protocol: str,
) -> None:
    body = wire.BUILDERS[protocol](_ops())
    reader = TurnReader(protocol)
    seen: list[object] = []
    ended_at = None
    for offset in range(len(body)):
        for progress in reader.feed(body[offset : offset + 1]):
            assert isinstance(progress, SAFE_TYPES), progress
            # Published objects carry no fragment: no field holds any argument text.
            for value in dataclasses.astuple(progress):
                assert not (isinstance(value, str) and ("{" in value or MARKER in value))
            seen.append(progress)
        if reader.ended and ended_at is None:
            ended_at = offset
    assert ended_at is not None
    assert any(isinstance(p, ToolCallAnnounced) and p.name == "read_file" for p in seen)
    result = reader.close()
    assert [c.arguments for c in result.tool_calls] == [ARGS]


def test_finishing_before_the_terminal_event_gives_names_but_no_arguments() -> None:
    assembler = TurnAssembler()
    assembler.feed(ToolCallStarted(0, "c1", "read_file"))
    assert assembler.feed(ToolArgumentsDelta(0, ARGS)) is None
    assert assembler.take_sizes() == [ToolArgumentsReceived(0, len(ARGS))]
    result = assembler.finish()
    assert result.outcome == "truncated"
    assert MARKER not in repr(result) and MARKER not in repr(result.to_dict())


def test_progress_counts_utf8_bytes() -> None:
    assembler = TurnAssembler()
    assembler.feed(ToolCallStarted("k", "c1", "f"))
    assembler.feed(ToolArgumentsDelta("k", '{"a":"é'))
    assert assembler.take_sizes() == [ToolArgumentsReceived(0, 8)]
    assembler.feed(ToolArgumentsDelta("k", '"}'))
    assembler.feed(ToolArgumentsDelta("k", " "))
    assert assembler.take_sizes() == [ToolArgumentsReceived(0, 11)]
    assert assembler.take_sizes() == []
