"""Frozen segments are rendered only when painted (issue 19's speed): off screen they get an
estimated height, on screen always their real render and real height."""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.markdown import Markdown as RichMarkdown

from tests.support.waiting import wait_for
from tests.ui_stream_helpers import TranscriptApp, full_speed, settle
from tests.ui_transcript_helpers import chunks, sample_markdown
from tui_agent.ui.widgets.frozen_markdown import (
    CODE_THEME,
    FrozenMarkdown,
    _Piece,
    _RenderedOnce,
    pieces,
)
from tui_agent.ui.widgets.markdown_height import estimate_height
from tui_agent.ui.widgets.segmented_markdown import finished_segments
from tui_agent.ui.widgets.transcript import Transcript


def _real_height(source: str, width: int) -> int:
    console = Console(width=width, file=None, color_system=None)
    segments = console.render(RichMarkdown(source, hyperlinks=False), console.options)
    return sum(text.count("\n") for text, _, _ in segments)


def test_the_estimate_is_close_to_the_real_height() -> None:
    estimated = real_total = 0
    for seed in range(3):
        for source in finished_segments(sample_markdown(40_000, seed)):
            for width in (40, 76, 116):
                real = _real_height(source, width)
                estimate = estimate_height(source, width)
                assert abs(estimate - real) <= max(3, real // 8)
                estimated += estimate
                real_total += real
    assert abs(estimated - real_total) <= real_total // 20


def _rendered_lines(source: str, console: Console, first: bool = True) -> list[str]:
    render = _RenderedOnce(source, CODE_THEME, lambda _w, _h: None)
    list(render.__rich_console__(console, console.options))
    return _Piece(source, first).lines(render)


def test_a_segment_rendered_piece_by_piece_shows_the_lines_of_its_whole_render() -> None:
    # The pieces are cut where a stream's segments are, lists kept whole: apart, with a blank
    # line between them, they render as the segment does in one go.
    for seed in range(3):
        segments = finished_segments(sample_markdown(40_000, seed))
        assert sum(len(pieces(source)) for source in segments) > 3 * len(segments)
        for source in segments:
            parts = pieces(source)
            for width in (40, 76, 116):
                console = Console(width=width, file=None, color_system=None)
                lines: list[str] = []
                for index, part in enumerate(parts):
                    if index:
                        lines.append("")
                    lines.extend(_rendered_lines(part, console, index == 0))
                assert lines == _rendered_lines(source, console), (seed, width)


async def test_an_answer_arriving_whole_renders_only_the_pieces_on_screen() -> None:
    text = sample_markdown(20_000, seed=2) + "\n\nThe last line.\n"
    app = TranscriptApp()
    async with app.run_test(size=(120, 40)) as pilot:
        answer = app.query_one(Transcript).start_assistant()
        answer.append(text)
        answer.finish()
        await settle(answer.body, pilot)
        frozen = list(answer.query(FrozenMarkdown))
        assert any("The last line." in line for line in frozen[-1].lines)
        rendered = [widget.pieces_rendered for widget in frozen[:-1]]
        # The end is on screen: the last segments' last pieces; nothing above them.
        assert sum(done for done, _ in rendered) <= 4 < sum(total for _, total in rendered)


def _painted(widget: FrozenMarkdown) -> bool:
    return widget.rendered_width == widget.content_size.width


async def test_only_what_is_painted_is_rendered_and_it_gets_its_real_height() -> None:
    text = sample_markdown(120_000, seed=4)
    app = TranscriptApp()
    # Page Down scrolls at once: painting is what is tested here, not the scroll animation
    # (which Pilot waits out on every one of some 60 pages, 50 s of the test).
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = app.query_one(Transcript)
        answer = transcript.start_assistant()
        await full_speed(answer.append, chunks(text, 3_000), per_read=100)
        answer.finish()
        await settle(answer.body, pilot)
        await pilot.pause()
        frozen = list(answer.query(FrozenMarkdown))
        assert len(frozen) > 10
        painted = [widget for widget in frozen if _painted(widget)]
        # Streamed past at full speed: the segments between the first screenful and the last
        # never reached the screen (the first may have, while the answer began).
        assert not any(_painted(widget) for widget in frozen[2:-2]) and _painted(frozen[-1])
        assert len(painted) < len(frozen) // 2
        for widget in painted:  # its painted pieces, not yet those above them
            assert widget.painted_at_real_height
        # Going through the answer page by page paints (and so renders) every segment, each
        # at its real height, and the view still ends at the bottom.
        await pilot.press("home")
        for _ in range(400):
            await pilot.pause()
            if all(_painted(widget) for widget in frozen):
                break
            await pilot.press("pagedown")
        await pilot.pause()
        assert all(_painted(widget) for widget in frozen)
        # The last page's real heights reach the layout at its next pass, which a loaded
        # machine may not have run yet (seen: 211 rows laid out for 210 lines).
        await wait_for(
            pilot,
            lambda: all(widget.size.height == len(widget.lines) for widget in frozen),
            "every segment laid out at its real height",
        )
        await pilot.press("end")
        await asyncio.sleep(0.05)
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_page_down_onto_the_end_of_a_long_answer_keeps_the_app_running() -> None:
    """Re-anchoring at the bottom from inside the scroll animation's step made Textual 8.2.8's
    animator raise a KeyError that ended the app."""
    app = TranscriptApp()
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = app.query_one(Transcript)
        answer = transcript.start_assistant()
        answer.append(sample_markdown(30_000, seed=1))
        answer.finish()
        await settle(answer.body, pilot)
        # A few pages above the end (the pages before them, animated one by one, prove
        # nothing more and took 15 s): the page-downs that reach the end are the point.
        above = max(0, transcript.max_scroll_y - 4 * transcript.size.height)
        transcript.scroll_to(y=above, animate=False, immediate=True)
        await pilot.pause()
        assert transcript.scroll_y < transcript.max_scroll_y
        at_end = 0
        for _ in range(60):
            await pilot.press("pagedown")
            await asyncio.sleep(0.05)
            at_end += transcript.scroll_y == transcript.max_scroll_y
            if at_end > 5:  # a few more onto the end, where the animator used to fail
                break
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
        answer = transcript.start_assistant()  # and it follows the next answer again
        answer.append(sample_markdown(10_000, seed=2))
        answer.finish()
        await settle(answer.body, pilot)
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
