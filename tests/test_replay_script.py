"""A saved session becomes the events the app saw: raw provider events decoded again at their
recorded pace, then decisions, tool starts and results as recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.replay_helpers import CUT_REASON, chunk, demo_session, raw, written_session
from tui_agent.agent.events import (
    CallDecided,
    CallInvalid,
    Notice,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
    TurnTruncated,
)
from tui_agent.replay import ReplayScript, UserSent, decision_line
from tui_agent.replay.script import MAX_PAUSE_S, NO_EVENTS, REBUILT, WITHDRAWN
from tui_agent.session import SessionStore
from tui_agent.session.records import AssistantRecord, ToolResultRecord, UserRecord
from tui_agent.stream.events import TextDelta
from tui_agent.stream.progress import ToolArgumentsReceived, ToolCallAnnounced


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_session(tmp_path_factory.mktemp("demo"))


def load(path: Path) -> Any:
    return SessionStore(path.parent).load(str(path))


def kinds(script: ReplayScript) -> list[str]:
    return [type(step.event).__name__ for step in script]


@pytest.mark.heavy
def test_a_demo_session_replays_the_turns_that_were_recorded(demo: Path) -> None:
    loaded = load(demo)
    script = ReplayScript.from_records(loaded.records, loaded.problems)
    events = [step.event for step in script]
    assistants = [r for r in loaded.records if isinstance(r, AssistantRecord)]
    assert len(assistants) == 2
    assert events[0] == UserSent("list the files")

    completed = [e for e in events if isinstance(e, TurnCompleted)]
    assert [e.turn.text for e in completed] == [r.text for r in assistants]
    assert [[c.to_dict() for c in e.turn.tool_calls] for e in completed] == [
        [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in r.tool_calls]
        for r in assistants
    ]
    [call] = assistants[0].tool_calls
    assert call.name == "list_dir"

    # Each turn streamed: its text in several deltas and its call announced before completion.
    first_end = events.index(completed[0])
    streamed = events[events.index(TurnStarted(1)) : first_end]
    assert "".join(e.text for e in streamed if isinstance(e, TextDelta)) == assistants[0].text
    assert ToolCallAnnounced(0, call.id, "list_dir") in streamed
    sizes = [e.size for e in streamed if isinstance(e, ToolArgumentsReceived)]
    assert sizes == sorted(sizes) and sizes[-1] == len(call.arguments.encode())

    # Then what happened to the call, as recorded, and the second turn.
    after = events[first_end + 1 :]
    assert after[0] == CallDecided(
        call.id, "list_dir", "approve", "policy", "read-only tool in auto-read mode"
    )
    assert after[1] == ToolStarted(call.id, "list_dir")
    [result] = [r for r in loaded.records if isinstance(r, ToolResultRecord)]
    assert after[2] == ToolFinished(call.id, "list_dir", "done", result.output, False)
    assert "alpha.txt" in result.output
    assert after[3] == TurnStarted(2)
    assert isinstance(events[-1], TurnCompleted) and not events[-1].turn.tool_calls
    assert not any(isinstance(e, Notice) for e in events)


def test_the_stream_keeps_its_recorded_pace(demo: Path) -> None:
    loaded = load(demo)
    script = ReplayScript.from_records(loaded.records)
    first = next(r for r in loaded.records if isinstance(r, AssistantRecord))
    steps = list(script)
    start = next(i for i, s in enumerate(steps) if s.event == TurnStarted(1))
    end = next(i for i, s in enumerate(steps) if isinstance(s.event, TurnCompleted))
    # From the request to the turn's end: exactly the recorded time of its last event.
    assert sum(s.delay for s in steps[start + 1 : end + 1]) == pytest.approx(first.raw[-1].t)
    # The first thing shown waited for the first byte (events that show nothing add their time).
    assert first.raw[0].t <= steps[start + 1].delay <= first.raw[-1].t
    assert all(s.delay >= 0 for s in steps)


def test_every_decision_a_withdrawal_and_a_cut_turn(tmp_path: Path) -> None:
    loaded = load(written_session(tmp_path))
    script = ReplayScript.from_records(loaded.records)
    events = [step.event for step in script]
    assert kinds(script)[:3] == ["UserSent", "TurnStarted", "TextDelta"]
    completed = next(e for e in events if isinstance(e, TurnCompleted))
    assert [c.name for c in completed.turn.tool_calls] == ["read_file", "run_command", "nope"]
    after = events[events.index(completed) + 1 :]
    assert after[:7] == [
        CallInvalid("call_C", "nope", "no tool named 'nope'"),
        ToolFinished("call_C", "nope", "invalid", "no tool named 'nope'", True),
        CallDecided("call_A", "read_file", "approve", "rule", "tool read_file"),
        CallDecided("call_B", "run_command", "deny", "user", "too risky"),
        ToolFinished("call_B", "run_command", "denied", "denied by user: too risky", True),
        ToolStarted("call_A", "read_file"),
        ToolFinished("call_A", "read_file", "done", "hello notes", False),
    ]
    # The cut turn streams (its text, its call being prepared), then is discarded, and why.
    cut = after[7:]
    assert cut[0] == TurnStarted(2)
    assert TextDelta("Writing it") in cut
    assert ToolCallAnnounced(0, "call_W", "write_file") in cut
    [truncated] = [e for e in cut if isinstance(e, TurnTruncated)]
    assert truncated.turn.reason == "cut" and truncated.turn.error == CUT_REASON
    assert [c.name for c in truncated.turn.pending_calls] == ["write_file"]
    assert truncated.message == truncated.turn.describe()
    assert "stream ended before the provider finished" in truncated.message
    assert CUT_REASON in truncated.message
    assert events[-1] == Notice(WITHDRAWN, "info")


def test_pauses_between_records_are_capped(tmp_path: Path) -> None:
    script = ReplayScript.from_records(load(written_session(tmp_path)).records)
    by_event = {type(s.event).__name__ + getattr(s.event, "decision", ""): s for s in script}
    # 5.8 s passed while the user decided: kept up to MAX_PAUSE_S.
    assert by_event["CallDecideddeny"].delay == MAX_PAUSE_S
    assert by_event["CallDecidedapprove"].delay == pytest.approx(0.1)


def _assistant(text: str, events: list[Any], **extra: Any) -> AssistantRecord:
    return AssistantRecord(
        ts=10.0,
        protocol="openai-chat",
        model="m",
        text=text,
        reasoning="",
        tool_calls=[],
        stop_reason="stop",
        usage=None,
        response_id=None,
        raw=events,
        **extra,
    )


def test_a_turn_whose_events_decode_differently_is_shown_as_saved() -> None:
    events = raw([chunk({"content": "[redacted]"}), chunk({}, "stop"), "[DONE]"])
    script = ReplayScript.from_records([UserRecord(text="hi"), _assistant("the secret", events)])
    shown = [s.event for s in script]
    assert Notice(REBUILT, "warning") in shown
    assert isinstance(shown[-1], TurnCompleted) and shown[-1].turn.text == "the secret"


def test_a_turn_without_events_is_shown_as_saved() -> None:
    script = ReplayScript.from_records([UserRecord(text="hi"), _assistant("hello", [])])
    shown = [s.event for s in script]
    assert shown[2:] == [
        Notice(NO_EVENTS, "info"),
        TextDelta("hello"),
        TurnCompleted(shown[-1].turn),  # type: ignore[union-attr]
    ]
    assert shown[-1].turn.text == "hello"  # type: ignore[union-attr]


def test_a_damaged_file_replays_past_the_bad_line_with_a_notice(tmp_path: Path) -> None:
    path = written_session(tmp_path)
    lines = path.read_text("utf-8").splitlines()
    lines.insert(2, '{"type": "user", "te')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = load(path)
    script = ReplayScript.from_records(loaded.records, loaded.problems)
    first = next(iter(script)).event
    assert isinstance(first, Notice) and first.level == "warning" and "line 3" in first.text
    assert any(isinstance(s.event, TurnTruncated) for s in script)


@pytest.mark.parametrize(
    ("decision", "by", "reason", "line"),
    [
        ("approve", "user", None, "approved by you"),
        (
            "approve",
            "user",
            "approved with the rest of this turn",
            "approved by you (approved with the rest of this turn)",
        ),
        ("approve", "rule", "tool read_file", "auto-approved by rule: tool read_file"),
        (
            "approve",
            "policy",
            "read-only tool in auto-read mode",
            "auto-approved: read-only tool in auto-read mode",
        ),
        ("edit", "user", None, "edited and approved by you"),
        ("deny", "user", "too risky", "denied: too risky"),
        ("deny", "user", None, "denied by you"),
        ("cancel", "user", None, "cancelled by you"),
        ("refused", "policy", "too large", "refused: too large"),
    ],
)
def test_decision_lines(decision: Any, by: Any, reason: str | None, line: str) -> None:
    assert decision_line(CallDecided("c", "t", decision, by, reason)) == line


def test_the_session_file_is_only_read(tmp_path: Path) -> None:
    path = written_session(tmp_path)
    before = path.read_bytes(), path.stat().st_mtime_ns
    loaded = load(path)
    ReplayScript.from_records(loaded.records, loaded.problems)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert json.loads(before[0].splitlines()[0])["type"] == "header"
