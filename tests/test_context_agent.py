"""Compaction in the agent loop, against the fake provider with a small window, in every
protocol: the threshold compacts before the request, the request that follows sends the summary
and the recent messages (no orphaned result), a failed compaction changes nothing, each
provider's overflow error is recognised, and a resumed session counts and sends the same."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.context_keeper import ContextKeeper
from tui_agent.agent.events import AgentEvent, LoopEnded, ToolFinished, TurnTruncated
from tui_agent.context.events import (
    Compacted,
    CompactionFailed,
    CompactionStarted,
    ContextOverflow,
    ContextUpdate,
)
from tui_agent.context.resume import resumed_context
from tui_agent.context.summary import CLOSE_TAG, OPEN_TAG
from tui_agent.session.records import CompactionRecord

from .agent_helpers import PROTOCOLS, Harness, agent_over, call_ops, of_type, sent_results
from .context_helpers import (
    OVERFLOW_BODIES,
    offered_tools,
    overflow_status,
    reply,
    request_text,
    text_reply,
)
from .fake_provider import ErrorEvent, Reply

WINDOW = {"context_window": 1000, "compact_at": 0.85, "max_retries": 0}
LONG_ANSWER = "The file says ship on friday. " * 40  # ~1200 bytes: more than a quarter window
SUMMARY = "SUMMARY: the user asked to read notes.txt; it says ship on friday."


def _first_exchange(protocol: str) -> list[Any]:
    """A read_file call and its result, then a long answer reporting 900 tokens (over 85%)."""
    return [
        reply(protocol, call_ops(("call_R", "read_file", {"path": "notes.txt"})), 300),
        text_reply(protocol, LONG_ANSWER, 900),
    ]


async def _collect(events: Any) -> list[AgentEvent]:
    async with asyncio.timeout(30):
        return [event async for event in events]


async def _first(h: Harness) -> None:
    (h.workspace / "notes.txt").write_text("ship on friday\n")
    events = await h.send("read notes.txt")
    assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
    update = of_type(events, ContextUpdate)[-1]
    assert update == ContextUpdate(900, 1000)


def _approve_all() -> dict[str, Any]:
    from tui_agent.approval import ApprovalMode

    # The summary request offers no tools, so the fake provider must not require them.
    return {"mode": ApprovalMode.AUTO_ALL, "require_tools": False}


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_threshold_compacts_before_the_request(protocol: str, tmp_path: Path) -> None:
    steps = [
        *_first_exchange(protocol),
        text_reply(protocol, SUMMARY, 120),
        text_reply(protocol, "Friday it is.", 400),
    ]
    async with agent_over(protocol, tmp_path, *steps, settings=WINDOW, **_approve_all()) as h:
        await _first(h)
        events = await h.send("and when do we ship?")
        h.server.assert_all_consumed()
        started = of_type(events, CompactionStarted)
        done = of_type(events, Compacted)
        assert [e.reason for e in started] == ["auto"] and len(done) == 1
        assert events.index(started[0]) < events.index(done[0])
        assert done[0].tokens_before > 850 and done[0].tokens_after < done[0].tokens_before
        assert done[0].summary == SUMMARY
        summary_request = h.server.requests[2].json
        text = request_text(summary_request)
        assert OPEN_TAG[1:-1] in text and CLOSE_TAG[2:-1] in text
        assert "ship on friday" in text  # the replaced messages, as a transcript
        assert not offered_tools(protocol, summary_request)
        following = h.server.requests[3].json
        sent = request_text(following)
        assert SUMMARY in sent and "and when do we ship?" in sent
        assert "call_R" not in sent and sent_results(protocol, following) == {}
        assert LONG_ANSWER.strip()[:60] not in sent
        records = h.records()
        (record,) = [r for r in records if isinstance(r, CompactionRecord)]
        assert (record.replaced, record.at, record.reason) == (4, 5, "auto")
        assert record.summary == SUMMARY
        assert of_type(events, ContextUpdate)[-1].used == 400
        # Resumed from the file: the same summary, the same messages sent, the same count.
        messages, _ = h.rebuilt()
        resumed = resumed_context(records, messages)
        keeper = ContextKeeper(h.agent.context.settings, resumed)
        tail = messages[resumed.replaced :]
        assert keeper.view(tail) == h.agent.context.view(h.agent.messages)
        used = keeper.used(h.agent.request.system, h.agent.tools, tail)
        assert used == h.agent.context_used() == 400


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_kept_calls_keep_their_results(protocol: str, tmp_path: Path) -> None:
    """A cut never separates a call from its result: here the call and result are kept."""
    steps = [
        reply(protocol, call_ops(("call_R", "read_file", {"path": "notes.txt"})), 300),
        text_reply(protocol, "It says ship on friday.", 500),
        text_reply(protocol, SUMMARY, 100),
        text_reply(protocol, "Yes.", 300),
    ]
    settings = {**WINDOW, "compact_at": 0.5}
    async with agent_over(protocol, tmp_path, *steps, settings=settings, **_approve_all()) as h:
        (h.workspace / "notes.txt").write_text("ship on friday\n")
        # Long enough that summarizing it saves a real share (a shorter one is not applied).
        await h.send("first: read notes.txt. " + "Some background for it. " * 40)
        events = await h.send("second")
        h.server.assert_all_consumed()
        (done,) = of_type(events, Compacted)
        assert done.replaced == 1  # only the first user message; the call and result stay
        following = h.server.requests[3].json
        assert sent_results(protocol, following) == {
            "call_R": sent_results(protocol, following)["call_R"]
        }
        assert SUMMARY in request_text(following)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_failed_compaction_changes_nothing(protocol: str, tmp_path: Path) -> None:
    steps = [
        *_first_exchange(protocol),
        Reply([("text", "SUMM")], faults=[ErrorEvent("overloaded", after_ops=1)]),
    ]
    async with agent_over(protocol, tmp_path, *steps, settings=WINDOW, **_approve_all()) as h:
        await _first(h)
        before = list(h.agent.messages)
        events = await _collect(h.agent.compact())
        h.server.assert_all_consumed()
        assert [type(e) for e in events] == [CompactionStarted, CompactionFailed]
        (failed,) = of_type(events, CompactionFailed)
        assert "nothing changed" in failed.message
        assert h.agent.messages == before and h.agent.context.summary is None
        assert h.agent.context_used() >= 900
        assert not [r for r in h.records() if isinstance(r, CompactionRecord)]
        h.assert_session_valid()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_overflow_error_is_recognised(protocol: str, tmp_path: Path) -> None:
    steps = [overflow_status(OVERFLOW_BODIES[protocol])]
    settings = {"max_retries": 0}
    async with agent_over(protocol, tmp_path, *steps, settings=settings) as h:
        events = await h.send("hello")
        h.server.assert_all_consumed()
        assert of_type(events, TurnTruncated)
        (overflow,) = of_type(events, ContextOverflow)
        assert "no longer fits" in overflow.message
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "truncated"
        assert h.agent.context.size in (None, 1000)  # the limit named, where one is named


async def test_overflow_then_compact_and_retry(tmp_path: Path) -> None:
    """`run` does this by itself: compact once, then send again."""
    protocol = "anthropic"
    steps = [
        *_first_exchange(protocol),
        overflow_status(OVERFLOW_BODIES[protocol]),
        text_reply(protocol, SUMMARY, 100),
        text_reply(protocol, "Done.", 300),
    ]
    settings = {**WINDOW, "compact_at": 0}
    async with agent_over(protocol, tmp_path, *steps, settings=settings, **_approve_all()) as h:
        h.agent.context.settings = type(h.agent.context.settings)(
            window=h.agent.context.settings.window, compact_at=0, retry_on_overflow=True
        )
        await _first(h)
        events = await h.send("next")
        h.server.assert_all_consumed()
        assert [type(e).__name__ for e in events if isinstance(e, ContextOverflow | Compacted)] == [
            "ContextOverflow",
            "Compacted",
        ]
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
        assert SUMMARY in request_text(h.server.requests[4].json)


async def test_tool_output_is_cut_to_the_window(tmp_path: Path) -> None:
    protocol = "openai-chat"
    steps = [
        reply(protocol, call_ops(("call_R", "read_file", {"path": "big.txt"})), 300),
        text_reply(protocol, "Read.", 600),
    ]
    settings = {**WINDOW, "compact_at": 0}
    async with agent_over(protocol, tmp_path, *steps, settings=settings, **_approve_all()) as h:
        (h.workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(2000)))
        events = await h.send("read big.txt")
        (result,) = of_type(events, ToolFinished)
        assert "cut to fit the model's context window" in result.output
        assert "line 0" in result.output and "line 1999" in result.output
        assert len(result.output) < 2500
        h.assert_session_valid()


def test_the_demo_model_writes_a_summary() -> None:
    from tui_agent.context.summary import compacted_view, compaction_request_text
    from tui_agent.conversation import AssistantMessage, ToolResultMessage, UserMessage
    from tui_agent.demo.brain import respond
    from tui_agent.stream.turn import ToolCall

    history = [
        UserMessage("read notes.md"),
        AssistantMessage("openai-chat", "", (ToolCall("c1", "read_file", '{"path":"notes.md"}'),)),
        ToolResultMessage("c1", "read_file", "hello"),
        AssistantMessage("openai-chat", "notes.md has one line: hello."),
    ]
    text = compaction_request_text("Summarize.", None, history, None)
    script = respond({"messages": [{"role": "user", "content": text}]})
    assert "read notes.md" in script.text and "read_file" in script.text
    assert not script.calls
    # The next request leads with the summary; the demo answers the message after it.
    (merged,) = compacted_view(script.text, [UserMessage("hi")])
    assert isinstance(merged, UserMessage)
    after = respond({"messages": [{"role": "user", "content": merged.text}]})
    assert not after.calls and "demo" in after.text.lower()


async def test_a_compaction_that_saves_no_real_share_is_not_applied(tmp_path: Path) -> None:
    """/compact on a short conversation: the summary is longer than what it replaces, so the
    conversation stays as it was (no record), and the person is told why."""
    protocol = "openai-chat"
    long_summary = "SUMMARY: " + "a very detailed account of everything so far. " * 40
    steps = [
        text_reply(protocol, "Hi.", 100),
        text_reply(protocol, "Sure.", 120),
        text_reply(protocol, long_summary, 300),
    ]
    async with agent_over(
        protocol, tmp_path, *steps, settings={"max_retries": 0}, require_tools=False
    ) as h:
        await h.send("hello")
        await h.send("and again")
        before = list(h.agent.messages)
        events = await _collect(h.agent.compact())
        h.server.assert_all_consumed()
        (failed,) = of_type(events, CompactionFailed)
        assert "not applied" in failed.message and "less than 10%" in failed.message
        assert of_type(events, Compacted) == []
        assert h.agent.messages == before
        assert not [r for r in h.records() if isinstance(r, CompactionRecord)]


async def test_a_manual_compact_summarizes_at_least_half(tmp_path: Path) -> None:
    """With a window so large that everything would fit what is kept, /compact still
    summarizes at least half of the conversation (by estimate), never just its first message."""
    protocol = "openai-chat"
    words = "Some detail of this exchange that takes room. " * 20
    answers = [text_reply(protocol, f"Answer {n}. {words}", 100 * n) for n in range(1, 9)]
    steps = [*answers, text_reply(protocol, "SUMMARY: short.", 50)]
    settings = {"context_window": 1_000_000, "max_retries": 0}
    async with agent_over(protocol, tmp_path, *steps, settings=settings, require_tools=False) as h:
        for n in range(1, 9):
            await h.send(f"question {n}: {words}")
        total = len(h.agent.messages)
        events = await _collect(h.agent.compact())
        (done,) = of_type(events, Compacted)
        assert done.replaced >= total // 2, (done.replaced, total)


async def test_pre_compact_hooks_run_before_the_summary_request(tmp_path: Path) -> None:
    import sys

    from tui_agent.agent.events import HookFinished

    protocol = "openai-chat"
    seen = tmp_path / "ws" / "compact.json"
    hook = tmp_path / "pre.py"
    hook.write_text(
        f"import json, sys\njson.dump(json.load(sys.stdin), open({str(seen)!r}, 'w'))\n"
    )
    steps = [*_first_exchange(protocol), text_reply(protocol, SUMMARY, 120)]
    hooks = [{"event": "PreCompact", "command": [sys.executable, str(hook)], "name": "backup"}]
    async with agent_over(
        protocol, tmp_path, *steps, settings=WINDOW, hooks=hooks, **_approve_all()
    ) as h:
        await _first(h)
        events = await _collect(h.agent.compact("keep the dates"))
        assert [type(e) for e in events][:2] == [HookFinished, CompactionStarted]
        assert of_type(events, Compacted)
    told = json.loads(seen.read_text())
    assert (told["hook_event_name"], told["trigger"], told["custom_instructions"]) == (
        "PreCompact",
        "manual",
        "keep the dates",
    )
