"""Links in an answer open only after a confirmation that shows their exact target, and only
http(s)/mailto ever open; text in an answer (streaming or finished) can be selected with the
mouse and copied with Ctrl+C. ``App.open_url`` is the OS boundary: it is recorded, not run."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets._markdown import MarkdownParagraph

from tui_agent.ui.screens.open_link import OpenLink, can_open
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.frozen_markdown import FrozenMarkdown

TARGET = "https://example.com/docs?a=1&b=two"
ANSWER = f"Read [the documentation page]({TARGET}) now.\n\nSecond paragraph here.\n"


class AnswerApp(App[None]):
    """One real AssistantMessage; every URL the app would open is recorded instead."""

    def __init__(self) -> None:
        super().__init__()
        self.answer = AssistantMessage()
        self.opened: list[str] = []

    def compose(self) -> ComposeResult:
        yield self.answer

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.opened.append(url)


async def streamed(pilot: Pilot[None], text: str, *, finish: bool = False) -> AnswerApp:
    app = pilot.app
    assert isinstance(app, AnswerApp)
    app.answer.append(text)
    if finish:
        app.answer.finish()
    await app.answer.body.wait_idle()
    await pilot.pause()
    return app


def shown(screen: object, selector: str) -> str:
    assert isinstance(screen, OpenLink)
    return str(screen.query_one(selector, Static).render())


async def click_link(pilot: Pilot[None]) -> OpenLink:
    """Click "the documentation page" in the live answer; the confirmation comes up."""
    paragraph = pilot.app.query(MarkdownParagraph).first()
    await pilot.click(paragraph, offset=(10, 0))  # inside the link text
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, OpenLink)
    return screen


async def test_a_click_asks_first_and_y_opens_the_exact_target() -> None:
    app = AnswerApp()
    async with app.run_test(size=(100, 20)) as pilot:
        await streamed(pilot, ANSWER)
        screen = await click_link(pilot)
        assert app.opened == []  # nothing opens before the answer
        assert shown(screen, "#target") == TARGET
        assert shown(screen, "#question") == "Open this link? y/n"
        await pilot.press("y")
        await pilot.pause()
        assert app.opened == [TARGET]
        assert not isinstance(app.screen, OpenLink)


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_n_or_escape_opens_nothing(key: str) -> None:
    app = AnswerApp()
    async with app.run_test(size=(100, 20)) as pilot:
        await streamed(pilot, ANSWER)
        await click_link(pilot)
        await pilot.press(key)
        await pilot.pause()
        assert not isinstance(app.screen, OpenLink)
        assert app.opened == []


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JavaScript:alert(document.cookie)",
        "file:///etc/passwd",
        "./notes.md",
        "https://example.com/\u202egnp.exe",  # a hidden direction override
        "https:///no-host",
    ],
)
async def test_other_targets_are_shown_and_never_opened(href: str) -> None:
    app = AnswerApp()
    async with app.run_test(size=(100, 20)) as pilot:
        await streamed(pilot, "Some text.\n")
        # markdown-it itself drops javascript: links; the message is what a click would post
        live = app.query_one(Markdown)
        app.query(MarkdownParagraph).first().post_message(Markdown.LinkClicked(live, href))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, OpenLink)
        assert shown(screen, "#refused") == "not opened: only http(s) links (Esc to close)"
        assert not screen.query("#question")
        target = shown(screen, "#target")
        assert "\u202e" not in target  # shown escaped, never rendered
        if "\u202e" in href:
            assert target == "https://example.com/<U+202E>gnp.exe"
        else:
            assert target == href
        await pilot.press("y")
        await pilot.pause()
        assert app.opened == []


def test_only_http_https_and_mailto_can_open() -> None:
    assert can_open("https://example.com/a")
    assert can_open("HTTP://example.com")
    assert can_open("mailto:someone@example.com")
    for href in ("javascript:alert(1)", "data:text/html,x", "file:///x", "/etc", "", "mailto:"):
        assert not can_open(href), href
    assert not can_open(" https://example.com")


async def drag_copy(pilot: Pilot[None], widget: Widget, y: int, x1: int, x2: int) -> str:
    """Drag over line ``y`` of ``widget``'s content, columns ``x1`` to ``x2`` (excluded: the
    cell under the pointer at the end is selected), then press Ctrl+C."""
    left = widget.content_region.x - widget.region.x
    await pilot.mouse_down(widget, offset=(left + x1, y))
    await pilot.hover(widget, offset=(left + x2 - 1, y))
    await pilot.mouse_up(widget, offset=(left + x2 - 1, y))
    await pilot.pause()
    await pilot.press("ctrl+c")
    await pilot.pause()
    return pilot.app.clipboard


async def test_selecting_streaming_answer_text_copies_it() -> None:
    app = AnswerApp()
    async with app.run_test(size=(100, 20)) as pilot:
        await streamed(pilot, ANSWER)
        second = app.query(MarkdownParagraph).last()
        assert await drag_copy(pilot, second, 0, 0, 16) == "Second paragraph"


async def test_selecting_finished_answer_text_copies_exactly_the_selection() -> None:
    app = AnswerApp()
    async with app.run_test(size=(100, 20)) as pilot:
        await streamed(pilot, ANSWER, finish=True)
        assert not app.query(Markdown)  # a finished answer is frozen segments only
        frozen = app.query_one(FrozenMarkdown)
        # line 0: the paragraph with the link (its target shown as text), line 2: the second
        assert await drag_copy(pilot, frozen, 2, 7, 16) == "paragraph"
        assert await drag_copy(pilot, frozen, 0, 0, 4) == "Read"


async def test_selecting_a_wrapped_line_of_a_finished_answer_copies_that_line() -> None:
    app = AnswerApp()
    async with app.run_test(size=(30, 20)) as pilot:
        await streamed(pilot, "alpha bravo charlie delta echo foxtrot golf\n", finish=True)
        frozen = app.query_one(FrozenMarkdown)
        # 26 columns of text: rich wraps after "delta", inside one segment of its output
        assert await drag_copy(pilot, frozen, 1, 0, 4) == "echo"
