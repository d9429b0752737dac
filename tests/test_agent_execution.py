"""How approved calls run: consecutive read-only calls concurrently, the others in announced
order; results sent back in announced order; tool output capped; auto-approved runs stopped after
max_auto_steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.agent.events import (
    CallDecided,
    LoopEnded,
    Notice,
    ToolFinished,
    ToolStarted,
    TurnCompleted,
    TurnStarted,
)
from tui_agent.approval import ApprovalMode, approve
from tui_agent.stream.events import TextDelta
from tui_agent.stream.turn import ToolCall, Turn

from .agent_helpers import (
    MEET_TOOL,
    NAP_TOOL,
    PROTOCOLS,
    ScriptedApprover,
    agent_over,
    answer,
    call_ops,
    check_order,
    finished,
    of_type,
    sent_results,
)
from .fake_provider import ExpectToolResults, Reply

NAP_S = 1.0


def nap(call_id: str, seconds: float = NAP_S) -> tuple[str, str, dict[str, str]]:
    return (call_id, "nap", {"seconds": f"{seconds:g}"})


def run(call_id: str, command: str) -> tuple[str, str, dict[str, str]]:
    return (call_id, "run_command", {"command": command})


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_consecutive_read_only_calls_run_concurrently(protocol: str, tmp_path: Path) -> None:
    meet = [
        ("call_A", "meet", {"mine": "a.mark", "other": "b.mark"}),
        ("call_B", "meet", {"mine": "b.mark", "other": "a.mark"}),
    ]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*meet)),
        answer(protocol, expect=ExpectToolResults({"call_A": "exit code 0", "call_B": None})),
        mode=ApprovalMode.AUTO_READ,
        tools=[MEET_TOOL],
    ) as h:
        events = await h.send("meet")
        assert {e.status for e in finished(events).values()} == {"done"}
        kinds = [type(e) for e in events if isinstance(e, ToolStarted | ToolFinished)]
        assert kinds == [ToolStarted, ToolStarted, ToolFinished, ToolFinished]
        h.assert_session_valid()
        h.server.assert_all_consumed()


async def test_two_read_only_naps_take_one_nap(tmp_path: Path) -> None:
    protocol = "openai-responses"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(nap("call_A"), nap("call_B"))),
        answer(protocol),
        mode=ApprovalMode.AUTO_READ,
        tools=[NAP_TOOL],
    ) as h:
        events = await h.send("nap twice")
        assert {e.status for e in finished(events).values()} == {"done"}
        stamps = [t for t, e in h.stamps if isinstance(e, ToolStarted | ToolFinished)]
        # One after the other they would take at least 2 * NAP_S.
        assert NAP_S <= stamps[-1] - stamps[0] < 2 * NAP_S - 0.2


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_other_calls_run_one_at_a_time_in_announced_order(
    protocol: str, tmp_path: Path
) -> None:
    calls = [
        run("call_A", "sleep 0.3; echo A >> order.txt"),
        run("call_B", "echo B >> order.txt"),
        ("call_C", "edit_file", {"path": "order.txt", "old": "B", "new": "C"}),
    ]
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*calls)),
        answer(protocol),
        mode=ApprovalMode.AUTO_ALL,
    ) as h:
        events = await h.send("in order")
        ran = [
            (type(e).__name__, e.call_id)
            for e in events
            if isinstance(e, ToolStarted | ToolFinished)
        ]
        assert ran == [
            ("ToolStarted", "call_A"),
            ("ToolFinished", "call_A"),
            ("ToolStarted", "call_B"),
            ("ToolFinished", "call_B"),
            ("ToolStarted", "call_C"),
            ("ToolFinished", "call_C"),
        ]
        # B was appended after A, and the edit saw B: each ran after the one before.
        assert (h.workspace / "order.txt").read_text() == "A\nC\n"
        assert {e.status for e in finished(events).values()} == {"done"}
        h.assert_session_valid()


async def test_a_read_announced_after_a_write_sees_the_write(tmp_path: Path) -> None:
    protocol = "anthropic"
    calls = [
        ("call_R1", "read_file", {"path": "f.txt"}),
        ("call_W", "write_file", {"path": "f.txt", "content": "new\n"}),
        ("call_R2", "read_file", {"path": "f.txt"}),
        ("call_R3", "list_dir", {"path": "."}),
    ]
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "f.txt").write_text("old\n")
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(*calls)),
        answer(protocol),
        mode=ApprovalMode.AUTO_ALL,
    ) as h:
        events = await h.send("write then read")
        outputs = {k: e.output for k, e in finished(events).items()}
        assert outputs["call_R1"] == "old\n"
        assert outputs["call_R2"] == "new\n"
        started = [e.call_id for e in of_type(events, ToolStarted)]
        assert started == ["call_R1", "call_W", "call_R2", "call_R3"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_results_go_back_in_announced_order_whatever_finished_first(
    protocol: str, tmp_path: Path
) -> None:
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(nap("call_slow", 0.5), nap("call_fast", 0.05))),
        answer(protocol),
        mode=ApprovalMode.AUTO_READ,
        tools=[NAP_TOOL],
    ) as h:
        events = await h.send("nap")
        assert [e.call_id for e in of_type(events, ToolFinished)] == ["call_fast", "call_slow"]
        assert list(sent_results(protocol, h.server.requests[1].json)) == [
            "call_slow",
            "call_fast",
        ]
        h.assert_session_valid()


@pytest.mark.parametrize(("cap", "size"), [(None, 100_000), (1000, 5000)])
async def test_tool_output_sent_to_the_model_is_capped_with_a_note(
    cap: int | None, size: int, tmp_path: Path
) -> None:
    protocol = "openai-chat"
    limit = cap or 64 * 1024  # the default
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "big.txt").write_text(("x" * 99 + "\n") * (size // 100))
    cut = size - limit
    note = f"[output cut: {cut} of {size} bytes not shown]"
    async with agent_over(
        protocol,
        tmp_path,
        Reply(call_ops(("call_A", "read_file", {"path": "big.txt"}))),
        answer(protocol, expect=ExpectToolResults({"call_A": note})),
        mode=ApprovalMode.AUTO_READ,
        settings={} if cap is None else {"tool_output_cap": cap},
    ) as h:
        events = await h.send("read it")
        output = finished(events)["call_A"].output
        whole = ("x" * 99 + "\n") * (size // 100)
        head, tail = whole[: limit - limit // 4], whole[size - limit // 4 :]
        assert output == head + "\n" + note + "\n" + tail  # the end of the output is kept too
        sent = sent_results(protocol, h.server.requests[1].json)["call_A"]
        assert sent == output
        h.assert_session_valid()


async def test_an_auto_approved_run_stops_after_25_steps_by_default_and_says_so(
    tmp_path: Path,
) -> None:
    protocol = "gemini"
    steps = [Reply(call_ops((f"call_{i}", "list_dir", {"path": "."}))) for i in range(25)]
    async with agent_over(
        protocol,
        tmp_path,
        *steps,
        answer(protocol, expect=ExpectToolResults({"call_24": None})),
        mode=ApprovalMode.AUTO_ALL,
    ) as h:
        events = await h.send("loop forever")
        assert len(h.server.requests) == 25
        [notice] = of_type(events, Notice)
        assert notice.level == "warning" and "25 auto-approved steps" in notice.text
        assert events[-1].outcome == "max_steps" and events[-1].message == notice.text
        # The last round's results are kept, and go with the user's next message.
        h.assert_session_valid()
        events = await h.send("go on")
        assert events[-1] == LoopEnded("complete")
        h.server.assert_all_consumed()


async def test_a_round_that_asked_the_user_starts_the_step_count_again(tmp_path: Path) -> None:
    protocol = "openai-responses"
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("a\n")
    read = ("read_file", {"path": "a.txt"})
    write = ("write_file", {"path": "b.txt", "content": "b"})
    # auto, asked, auto, auto -> stop at the 2nd auto-approved step in a row.
    rounds = [read, write, read, read]
    steps = [Reply(call_ops((f"call_{i}", *c))) for i, c in enumerate(rounds)]
    async with agent_over(
        protocol,
        tmp_path,
        *steps,
        approver=ScriptedApprover(approve()),
        mode=ApprovalMode.AUTO_READ,
        settings={"max_auto_steps": 2},
    ) as h:
        events = await h.send("go")
        assert len(h.server.requests) == 4
        assert events[-1].outcome == "max_steps" and "2 auto-approved steps" in events[-1].message
        assert [r.call_id for r in h.approver.requests] == ["call_1"]
        h.server.assert_all_consumed()


def test_the_order_check_rejects_what_a_ui_could_not_follow() -> None:
    """The rules every test above applies to its events, shown failing on bad sequences."""
    turn = Turn(
        "", "", (ToolCall("a", "read_file", "{}"), ToolCall("b", "read_file", "{}")), None, None
    )
    decide = [
        CallDecided("a", "read_file", "approve", "user"),
        CallDecided("b", "read_file", "deny", "user"),
    ]
    good = [
        TurnStarted(1),
        TurnCompleted(turn),
        *decide,
        ToolStarted("a", "read_file"),
        ToolFinished("b", "read_file", "denied", "denied by user", True),
        ToolFinished("a", "read_file", "done", "", False),
        LoopEnded("complete"),
    ]
    check_order(good)
    answered = Turn("fine", "", (), None, None)
    check_order([*good[:-1], TurnStarted(2), TurnCompleted(answered), LoopEnded("complete")])
    bad = [
        [*good[:2], decide[0], ToolStarted("a", "read_file"), *good[3:]],  # before b's decision
        good[:5] + good[6:],  # a call without its result
        [*good[:2], CallDecided("a", "read_file", "deny", "user"), *good[2:]],  # decided twice
        [*good[:-1], TurnStarted(3), TurnCompleted(answered), LoopEnded("complete")],  # skipped 2
        [*good[:2], TextDelta("late"), *good[2:]],  # streaming after the turn completed
        good[:-1],  # no LoopEnded
    ]
    for events in bad:
        with pytest.raises(AssertionError):
            check_order(events)
