"""Rendering: no untrusted ESC or C1 byte reaches the terminal; hidden characters are made visible;
markup is shown literally (issue 6).

A matrix: every payload of ``terminal.PAYLOADS`` (OSC 52, OSC 8, OSC 0/2, CSI 2J, ESC c, DCS,
APC, 8-bit C1, an unterminated OSC, bidi and zero-width characters, "[@click=app.quit]",
"[link=...]", "[/", "[TODO]") on every surface: model text, reasoning, tool output, tool
arguments (card and approval prompt), file names, provider error bodies, replayed sessions; and a
sequence split across two deltas. One app run per surface carries all payloads. The real app runs
against the fake provider over loopback, and everything it writes to the terminal is recorded
(``terminal.RecordingDriver``) and checked byte by byte; the visible stand-in of each payload must
be on screen.
"""

from __future__ import annotations

import contextlib
import json
import shlex
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import RichLog

from tui_agent.session import SessionStore
from tui_agent.session.records import (
    AssistantRecord,
    DecisionRecord,
    ToolCallRecord,
    ToolResultRecord,
    TruncatedRecord,
    UserRecord,
)
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.replay_app import ReplayApp
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.folded_text import FoldedText
from tui_agent.ui.widgets.reasoning_block import ReasoningBlock
from tui_agent.ui.widgets.replayed_prompt import ReplayedPrompt
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.ui.widgets.tool_result import ResultSummary
from tui_agent.ui.widgets.transcript import Transcript

from ..fake_provider import ErrorEvent, FakeProvider, Hold, Reply, Status
from ..replay_helpers import FrozenClock, call_delta, chunk, raw
from ..ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    cards,
    make_app,
    offset_of,
    send,
    wait_for,
    wait_idle_agent,
)
from ..wire import Op
from .terminal import (
    PAYLOADS,
    RAW_FRAGMENTS,
    assert_clean,
    assert_clicks_do_nothing,
    missing,
    one_line,
    paragraph,
    record,
    region_text,
    shown,
)

PROTOCOL = "openai-chat"
SIZE = (120, 50)


@contextlib.asynccontextmanager
async def recorded(
    server: FakeProvider, env: AppEnv, size: tuple[int, int] = SIZE
) -> AsyncIterator[tuple[TuiAgentApp, Pilot[None]]]:
    """The real app, every byte it writes to the terminal kept (``terminal.output``)."""
    app = make_app(server, env)
    record(app)
    async with app.run_test(size=size, headless=False) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        yield app, pilot
        if app.is_running:
            await pilot.press("ctrl+q")


def answer_shows(app: App[None], text: str) -> Callable[[], bool]:
    return lambda: text in region_text(app, app.query_one(AssistantMessage))


def is_expanded(card: ToolCallCard) -> Callable[[], bool]:
    return lambda: card.model.expanded


def output_in_view(app: App[None], card: ToolCallCard) -> Callable[[], bool]:
    """The opened output's top is on screen, inside the transcript (not under the status bar:
    opened at the end, a long output pushed its own start out of view)."""
    view = app.query_one(Transcript).region
    return lambda: view.y <= card.query_one(RichLog).region.y < view.bottom


# -- model text and reasoning ------------------------------------------------------------------


async def test_model_text_and_reasoning(env: AppEnv) -> None:
    ops = [("reasoning", paragraph(PAYLOADS)), ("text", paragraph(PAYLOADS))]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops, stop="stop"))
        async with recorded(server, env) as (app, pilot):
            await send(pilot, "say it")
            await wait_idle_agent(pilot)
            answer = app.query_one(AssistantMessage)
            await wait_for(
                pilot,
                lambda: answer.settled and "never-ends" in region_text(app, answer),
                "the answer",
            )
            reasoning = app.query_one(ReasoningBlock)
            await pilot.click(reasoning)  # the user opens the reasoning
            await wait_for(pilot, lambda: "never-ends" in region_text(app, reasoning), "reasoning")
            assert missing(region_text(app, answer), PAYLOADS) == []
            assert missing(region_text(app, reasoning), PAYLOADS) == []
            await assert_clicks_do_nothing(pilot, answer)
            await assert_clicks_do_nothing(pilot, reasoning)
            assert_clean(app, RAW_FRAGMENTS)


async def test_a_sequence_split_across_two_deltas(env: AppEnv) -> None:
    """The ESC in one delta, the rest in the next, and the app draws between the two."""
    ops = [("text", "split \x1b"), ("text", "]52;c;U1BMSVQ=\x07 and \x9b"), ("text", "2J done")]
    holds = [Hold(offset_of(PROTOCOL, ops, "]52;c;")), Hold(offset_of(PROTOCOL, ops, "2J done"))]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops, stop="stop", faults=holds))
        async with recorded(server, env) as (app, pilot):
            await send(pilot, "say it")
            for part in ("split\\x1b", "\\x9b"):
                await wait_for(pilot, lambda: server.wait_stalled(0), "the stream to pause")
                await wait_for(pilot, answer_shows(app, part), part)  # drawn before the rest
                server.release()
            await wait_idle_agent(pilot)
            answer = app.query_one(AssistantMessage)
            await wait_for(pilot, lambda: "done" in region_text(app, answer), "the end")
            assert "split\\x1b]52;c;U1BMSVQ=\\x07and\\x9b2Jdone" in region_text(app, answer)


# -- tool calls: names, arguments, file names, output ------------------------------------------


def _file_name(raw: str) -> str:
    return raw.replace("/", "|")  # "/" is the one character a file name cannot hold (and NUL)


async def test_tool_names_arguments_file_names_and_output(env: AppEnv) -> None:
    names = {name: _file_name(raw) for name, raw in PAYLOADS.items()}
    for name in names.values():
        (env.workspace / f"{name}.txt").write_text("x", encoding="utf-8")
    (env.workspace / "notes.txt").write_text("\n".join(PAYLOADS.values()) + "\n", encoding="utf-8")
    missing_path = "\n".join(names.values())
    printf = "printf '%s\\n' " + " ".join(shlex.quote(raw) for raw in PAYLOADS.values())
    calls = [
        ("call_P", "read_file", {"path": missing_path}),
        ("call_R", "run_command", {"command": printf}),
        ("call_L", "list_dir", {"path": "."}),
        ("call_N", "read_file", {"path": "notes.txt"}),
    ]
    ops: list[Op] = []
    for index, (call_id, tool, arguments) in enumerate(calls):
        body = json.dumps(arguments, ensure_ascii=False)  # C1, bidi raw; ESC as \u001b
        ops += [("call", index, call_id, tool), ("args", index, body), ("close", index)]
    evil = "evil" + PAYLOADS["OSC 0"] + PAYLOADS["[@click=app.quit]"]
    ops += [("call", 4, "call_X", evil), ("args", 4, "{}"), ("close", 4)]
    ops += [
        ("call", 5, "call_Y", "read_file"),
        ("args", 5, '{"path": "' + one_line(PAYLOADS) + '"}'),
    ]
    ops += [("close", 5)]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops), answer(PROTOCOL, "Done."))
        async with recorded(server, env) as (app, pilot):
            await send(pilot, "look around")
            # The file names in a path argument, as the JSON preview shows them; then the exact
            # command line (and "A" approves the rest of the turn).
            for call_id, want, as_json, key in (
                ("call_P", names, True, "y"),
                ("call_R", PAYLOADS, False, "A"),
            ):
                prompt = await armed_prompt(pilot)
                assert prompt.request.call_id == call_id
                text = region_text(app, prompt.query_one(FoldedText))
                assert missing(text, want, json_string=as_json) == []
                await pilot.press(key)
            await wait_idle_agent(pilot)
            by_id = {card.model.call_id: card for card in cards(app)}
            assert by_id["call_X"].state == "invalid" and by_id["call_Y"].state == "invalid"
            for call_id, want in (
                ("call_L", names),
                ("call_P", names),
                ("call_N", PAYLOADS),
                ("call_R", PAYLOADS),
            ):
                card = by_id[call_id]
                card.query_one(ResultSummary).scroll_visible(animate=False)  # wrapped outputs
                await pilot.pause()  # of the cards above may have pushed it down
                await pilot.click(card.query_one(ResultSummary))
                await wait_for(pilot, is_expanded(card), "the output to open")
                await wait_for(pilot, output_in_view(app, card), "the output's top in view")
                assert missing(region_text(app, card.query_one(RichLog)), want) == [], call_id
                if call_id == "call_N":
                    await assert_clicks_do_nothing(pilot, card.query_one(RichLog), ("QUITNOW",))
                card.query_one(ResultSummary).scroll_visible(animate=False)
                await pilot.pause()
                await pilot.click(card.query_one(ResultSummary))  # closed again
            # The hostile name in the card header; raw ESC in invalid arguments in its summary.
            assert shown(evil) in region_text(app, by_id["call_X"])
            assert shown(PAYLOADS["OSC 52"]) in region_text(app, by_id["call_Y"])
            await assert_clicks_do_nothing(pilot, by_id["call_X"], ("QUITNOW",))
            assert_clean(app, RAW_FRAGMENTS)


# -- provider error bodies ---------------------------------------------------------------------


async def test_provider_error_bodies(env: AppEnv) -> None:
    """An HTTP error whose JSON body carries the payloads, then a mid-stream error event."""
    body = json.dumps({"error": {"message": one_line(PAYLOADS)}}).encode()
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Status(400, body=body),
            Reply([("text", "partial ")], faults=ErrorEvent(one_line(PAYLOADS), after_ops=1)),
        )
        async with recorded(server, env) as (app, pilot):
            transcript = app.query_one(Transcript)
            await send(pilot, "first")
            await wait_idle_agent(pilot)
            await wait_for(pilot, lambda: "never-ends" in region_text(app, transcript), "error")
            assert missing(region_text(app, transcript), PAYLOADS) == []
            await assert_clicks_do_nothing(pilot, transcript)
            await send(pilot, "second")
            await wait_idle_agent(pilot)
            answer = app.query_one(AssistantMessage)
            await wait_for(pilot, lambda: "never-ends" in region_text(app, answer), "discarded")
            assert missing(region_text(app, answer), PAYLOADS) == []
            assert_clean(app, RAW_FRAGMENTS)


# -- replayed sessions -------------------------------------------------------------------------


def hostile_session(directory: Path) -> Path:
    """A session file whose every field that is shown carries the payloads."""
    evil = "evil" + PAYLOADS["OSC 0"] + PAYLOADS["[@click=app.quit]"]
    command = json.dumps({"command": "echo " + one_line(PAYLOADS)}, ensure_ascii=False)
    calls = [
        ToolCallRecord(id="call_C", name="run_command", arguments=command),
        ToolCallRecord(id="call_E", name=evil, arguments="{}"),
    ]
    datas = [
        chunk({"role": "assistant", "reasoning_content": paragraph(PAYLOADS)}),
        chunk({"content": paragraph(PAYLOADS)}),
        chunk(call_delta("call_C", "run_command", command)),
        chunk(call_delta("call_E", evil, "{}", 1)),
        chunk({}, "tool_calls"),
        "[DONE]",
    ]
    records: list[Any] = [
        UserRecord(ts=1000.0, text="go"),
        AssistantRecord(
            ts=1003.0,
            text=paragraph(PAYLOADS),
            reasoning=paragraph(PAYLOADS),
            tool_calls=calls,
            stop_reason="tool_calls",
            raw=raw(datas),
            protocol=PROTOCOL,
            model="m",
            usage=None,
            response_id="chatcmpl-w",
        ),
        DecisionRecord(
            ts=1003.1, call_id="call_E", decision="invalid", digest="", by="policy", reason=evil
        ),
        ToolResultRecord(
            ts=1003.1, call_id="call_E", name=evil, output=evil, is_error=True, status="invalid"
        ),
        DecisionRecord(
            ts=1005.0,
            call_id="call_C",
            decision="deny",
            digest="d",
            by="user",
            reason=one_line(PAYLOADS),
        ),
        ToolResultRecord(
            ts=1005.0,
            call_id="call_C",
            name="run_command",
            output="denied by user:\n" + "\n".join(PAYLOADS.values()),
            is_error=True,
            status="denied",
        ),
        TruncatedRecord(
            ts=1008.0,
            reason="cut",
            error=one_line(PAYLOADS),
            stop_reason=None,
            text="cut",
            pending_calls=[],
            raw=raw([chunk({"role": "assistant", "content": "cut"})]),
            protocol=PROTOCOL,
            model="m",
        ),
    ]
    writer = SessionStore(directory).create(
        profile="p", protocol=PROTOCOL, model="m", workspace="/nowhere"
    )
    for record_ in records:
        writer.append(record_)
    writer.close()
    return writer.path


async def test_replayed_session(tmp_path: Path) -> None:
    path = hostile_session(tmp_path)
    app = ReplayApp(SessionStore(path.parent).load(str(path)), speed=1, clock=FrozenClock())
    record(app)
    async with app.run_test(size=(120, 80), headless=False) as pilot:
        await pilot.press("space")  # paused: "." steps
        while not app.query(ReplayedPrompt):
            assert not app.player.finished, "the denied call's prompt never showed"
            await pilot.press("full_stop")
            await pilot.pause()
        prompt = app.query_one(ReplayedPrompt)
        await pilot.pause()
        assert missing(region_text(app, prompt.query_one(FoldedText)), PAYLOADS) == []
        assert missing(region_text(app, prompt.query_one("#decision")), PAYLOADS) == []
        while not app.player.finished:
            await pilot.press("full_stop")
            await pilot.pause()
        await pilot.pause()
        reasoning = app.query_one(ReasoningBlock)
        await pilot.click(reasoning)
        await wait_for(pilot, lambda: "never-ends" in region_text(app, reasoning), "reasoning")
        assert missing(region_text(app, reasoning), PAYLOADS) == []
        answer = app.query(AssistantMessage).first()
        assert missing(region_text(app, answer), PAYLOADS) == []
        card = next(c for c in app.query(ToolCallCard) if c.model.call_id == "call_C")
        await pilot.click(card.query_one(ResultSummary))
        await wait_for(pilot, lambda: card.model.expanded, "the output to open")
        assert missing(region_text(app, card.query_one(RichLog)), PAYLOADS) == []
        cut = app.query(AssistantMessage).last()
        assert missing(region_text(app, cut), PAYLOADS) == []  # the error that cut the turn
        await assert_clicks_do_nothing(pilot, answer)
        assert_clean(app, RAW_FRAGMENTS)
