"""Tool cards: alive while arguments stream (never showing them), one look per state, results
collapsed to a line."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator

import pytest
from textual.widgets import RichLog

from tests.support.clock import ManualClock
from tests.ui_transcript_helpers import HOSTILE, WidgetApp
from tui_agent.ui.arming import KeyClock
from tui_agent.ui.widgets.tool_card import STATES, CardHeader, ToolCallCard, ToolCallModel
from tui_agent.ui.widgets.tool_result import MAX_LINES, ResultSummary, ToolResultView


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    monkeypatch.setattr(ToolCallCard, "clock", fake)
    yield fake


def header(card: ToolCallCard) -> str:
    return card.query_one(CardHeader).render().plain


def test_the_card_has_no_way_to_take_argument_text() -> None:
    methods = {
        name: inspect.signature(value)
        for name, value in vars(ToolCallCard).items()
        if inspect.isfunction(value) and not name.startswith(("_", "on_", "compose"))
    }
    assert {name: list(sig.parameters)[1:] for name, sig in methods.items()} == {
        "set_name": ["name"],
        "set_bytes": ["size"],
        "set_state": ["state", "detail"],
        "set_arguments_summary": ["text"],  # one short line, after the turn completed
        "add_hook": ["line"],  # a hook's verdict: hooks run only once the turn completed
        "set_result": ["output", "is_error"],
        "subagent_model": ["agent"],  # a task's subagent: its complete turns' calls only
        "subagent_changed": [],
        "snapshot": [],
    }
    assert list(inspect.signature(ToolCallCard).parameters) == [
        "position",
        "call_id",
        "name",
        "model",
    ]
    fields = {field.name for field in dataclasses.fields(ToolCallModel)}
    assert not {name for name in fields if "arg" in name}
    # The only text about arguments is the summary, given once the turn is complete.
    assert "summary" in fields


async def test_preparing_shows_name_spinner_elapsed_and_byte_count(clock: FakeClock) -> None:
    card = ToolCallCard(0, "call_1", "write_file")
    app = WidgetApp(card)
    async with app.run_test(size=(100, 10)) as pilot:
        await pilot.pause()
        assert card.has_class("-preparing")
        assert card.ticking
        text = header(card)
        assert "preparing tool: write_file" in text
        assert "0 bytes of arguments" in text
        clock.now += 2.5
        card.set_bytes(40_123)
        text = header(card)
        assert "2.5 s" in text
        assert "40,123 bytes of arguments" in text
        assert text[0] in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
        await pilot.pause()
        assert "40,123" in app.export_screenshot()


async def test_each_state_has_its_own_class_label_and_icon(clock: FakeClock) -> None:
    card = ToolCallCard(0, "call_1", "run_command")
    app = WidgetApp(card)
    async with app.run_test(size=(100, 10)) as pilot:
        seen: set[str] = set()
        for state, (icon, label) in STATES.items():
            card.set_state(state)
            await pilot.pause()
            classes = {c for c in card.classes if c.lstrip("-") in STATES}
            assert classes == {f"-{state}"}
            text = header(card)
            assert f"{label} run_command" in text
            if icon:
                assert text.startswith(icon)
            assert card.ticking == (state in ("preparing", "running"))
            seen.add(text.split(" run_command")[0])
        assert len(seen) == len(STATES)  # every state reads differently


async def test_running_time_is_kept_and_detail_shown(clock: FakeClock) -> None:
    card = ToolCallCard(0, "call_1", "run_command")
    app = WidgetApp(card)
    async with app.run_test(size=(100, 10)) as pilot:
        card.set_arguments_summary("pytest -q")
        card.set_state("waiting")
        card.set_state("approved", "rule: git status prefix")
        clock.now += 5
        card.set_state("running")
        clock.now += 1.25
        assert "1.2 s" in header(card) or "1.3 s" in header(card)
        card.set_state("done")
        await pilot.pause()
        text = header(card)
        assert "done: run_command  pytest -q" in text
        assert "ran 1.2 s" in text or "ran 1.3 s" in text
        assert not card.ticking
        assert "rule:&#160;git&#160;status&#160;prefix" in app.export_screenshot()


async def test_result_is_one_line_then_expands_to_a_log(clock: FakeClock) -> None:
    card = ToolCallCard(0, "call_1", "read_file")
    app = WidgetApp(card)
    output = "first line of the file\n" + "".join(f"line {i}\n" for i in range(2, 40))
    async with app.run_test(size=(100, 30)) as pilot:
        card.set_state("done")
        card.set_result(output, False)
        await pilot.pause()
        view = card.query_one(ToolResultView)
        summary = card.query_one(ResultSummary)
        log = card.query_one(RichLog)
        assert "first line of the file" in str(summary.render())
        assert "(+38 more lines, " in str(summary.render())
        assert str(summary.render()).endswith("· Enter or click opens")
        assert not log.display or log.styles.display == "none"
        assert summary.size.height == 1
        await pilot.click(ResultSummary)
        await pilot.pause()
        assert view.expanded
        assert log.styles.display == "block"
        assert [strip.text for strip in log.lines] == output.splitlines()
        assert str(summary.render()).endswith("· Enter or click closes")
        summary.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert not view.expanded
        assert log.styles.display == "none"


@pytest.mark.heavy
async def test_a_long_first_line_leaves_room_to_say_how_to_open(clock: FakeClock) -> None:
    card = ToolCallCard(0, "call_1", "run_command")
    app = WidgetApp(card)
    async with app.run_test(size=(70, 10)) as pilot:
        card.set_state("done")
        card.set_result("x" * 300 + "\nsecond\n", False)
        await pilot.pause()
        summary = card.query_one(ResultSummary)
        shown = str(summary.render())
        assert shown.endswith("(+1 more line, 308 B)  · Enter or click opens"), shown
        assert "xxx…" in shown
        assert len(shown) <= summary.content_size.width


async def test_long_output_is_truncated_for_display_with_a_note(clock: FakeClock) -> None:
    card = ToolCallCard(0, "call_1", "run_command")
    app = WidgetApp(card)
    output = "".join(f"row {i}\n" for i in range(MAX_LINES * 3))
    async with app.run_test(size=(100, 30)) as pilot:
        card.set_state("failed")
        card.set_result(output, True)
        await pilot.pause()
        card.query_one(ToolResultView).toggle()
        await pilot.pause()
        assert len(card.query_one(RichLog).lines) == MAX_LINES
        screen = app.export_screenshot()
        assert "display&#160;truncated:&#160;2,000&#160;of&#160;6,000&#160;lines" in screen


async def test_hostile_name_summary_detail_and_output_are_shown_literally(
    clock: FakeClock,
) -> None:
    card = ToolCallCard(0, "call_1", "evil" + HOSTILE)
    app = WidgetApp(card)
    async with app.run_test(size=(200, 30)) as pilot:
        card.set_arguments_summary(HOSTILE)
        card.set_state("failed", HOSTILE)
        card.set_result(HOSTILE + "\nsecond " + HOSTILE, True)
        await pilot.pause()
        card.query_one(ToolResultView).toggle()
        await pilot.pause()
        screen = app.export_screenshot()
        assert "\x1b" not in screen and "\x07" not in screen
        assert screen.count("[@click=app.quit]") >= 4
        assert app.is_running


async def test_updates_reach_a_rebuilt_card_through_the_shared_model(clock: FakeClock) -> None:
    first = ToolCallCard(0, "call_1", "read_file")
    app = WidgetApp(first)
    async with app.run_test(size=(100, 10)) as pilot:
        await pilot.pause()
        snapshot = first.snapshot()
        await first.remove()
        second = snapshot.build()
        await app.screen.mount(second)
        first.set_bytes(77)  # the caller still holds the first card
        first.set_state("waiting")
        await pilot.pause()
        assert second.has_class("-waiting")
        assert "77 bytes" in header(second)


async def test_an_opened_result_wraps_long_lines(clock: FakeClock) -> None:
    """An opened output card wraps a long line (the sandbox's advice used to be cut at the
    edge): every word of it is on screen."""
    card = ToolCallCard(0, "call_1", "run_command")
    app = WidgetApp(card)
    words = " ".join(f"word{i}" for i in range(60))
    async with app.run_test(size=(70, 30)) as pilot:
        card.set_state("failed")
        card.set_result(f"short\n{words} THE-END\n", True)
        await pilot.pause()
        card.query_one(ToolResultView).toggle()
        await pilot.pause()
        shown = [strip.text for strip in card.query_one(RichLog).lines]
        assert len(shown) > 2  # the long line took several rows
        assert all(len(row.rstrip()) <= 70 for row in shown)
        assert "THE-END" in " ".join(shown) and "word59" in " ".join(shown)


async def test_the_elapsed_time_follows_the_apps_clock() -> None:
    """No frozen card clock: the card reads its app's clock, which the test moves."""
    manual = ManualClock()
    app = WidgetApp()
    app.key_clock = KeyClock(clock=manual)  # type: ignore[attr-defined]
    async with app.run_test(size=(100, 10)) as pilot:
        card = ToolCallCard(0, "call_1", "run_command")  # made in the app: started by its clock
        await app.mount(card)
        await pilot.pause()
        assert "0.0 s" in header(card)
        manual.advance(2.5)
        assert "preparing tool: run_command  · 2.5 s" in header(card)
        card.set_state("running")
        manual.advance(61)
        assert "1 min 01 s" in header(card)
        card.set_state("done")
        manual.advance(10)
        assert "ran 1 min 01 s" in header(card)
