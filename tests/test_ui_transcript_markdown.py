"""Streaming markdown: the answer comes out whole, the live part stays small, fences stay whole."""

from __future__ import annotations

import itertools
import random

import pytest
from textual.widgets import Markdown

from tests.ui_transcript_helpers import HOSTILE, WidgetApp, chunks, sample_markdown
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.frozen_markdown import FrozenMarkdown
from tui_agent.ui.widgets.markdown_split import Cut, MarkdownSplitter
from tui_agent.ui.widgets.reasoning_block import ReasoningBlock
from tui_agent.ui.widgets.segmented_markdown import SegmentedMarkdown

FENCE = "```python\n" + "\n\n".join(f"line_{i} = {i}" for i in range(120)) + "\n```\n"


def _segments(pieces_per_feed: list[list[str | Cut]]) -> list[str]:
    segments = [""]
    for pieces in pieces_per_feed:
        for piece in pieces:
            if isinstance(piece, Cut):
                segments[-1] += piece.close
                segments.append(piece.reopen)
            else:
                segments[-1] += piece
    return segments


def _fence_lines(segment: str) -> int:
    return sum(1 for line in segment.splitlines() if line.lstrip().startswith("```"))


# -- the splitter alone ---------------------------------------------------------------------


def test_splitter_gives_back_every_character_however_the_text_is_chunked() -> None:
    text = sample_markdown(40_000)
    for seed in range(5):
        splitter = MarkdownSplitter(1024)
        fed = [splitter.feed(part) for part in chunks(text, 600, seed=seed)]
        rejoined = "".join(p for pieces in fed for p in pieces if isinstance(p, str))
        assert rejoined == text
        assert len(_segments(fed)) > 10


def test_splitter_cuts_only_after_a_blank_line_and_before_a_flush_left_line() -> None:
    text = sample_markdown(40_000)
    splitter = MarkdownSplitter(1024)
    segments = _segments([splitter.feed(part) for part in chunks(text, 900)])
    for before, after in itertools.pairwise(segments):
        assert before.endswith("\n\n")
        assert after[:1] not in (" ", "\t", "\n")


def test_splitter_never_cuts_inside_a_fence_even_at_blank_lines() -> None:
    text = "intro\n\n" + "x " * 600 + "\n\n" + FENCE + "\nafter\n\n" + "y " * 600 + "\n"
    splitter = MarkdownSplitter(200)
    segments = _segments([splitter.feed(part) for part in chunks(text, 400)])
    holding = [s for s in segments if "```python" in s]
    assert len(holding) == 1
    assert FENCE in holding[0]
    assert all(_fence_lines(s) % 2 == 0 for s in segments)


def test_an_overlong_fence_is_closed_and_reopened_for_display_only() -> None:
    body = "".join(f"code_line_{i} = {i}\n" for i in range(4000))
    text = "```python\n" + body + "```\n\nafter\n"
    splitter = MarkdownSplitter(1024, fence_limit=8 * 1024)
    fed = [splitter.feed(part) for part in chunks(text, 500)]
    assert "".join(p for pieces in fed for p in pieces if isinstance(p, str)) == text
    segments = _segments(fed)
    assert len(segments) > 5
    for segment in segments[:-1]:
        assert segment.startswith("```python\n") or segment == segments[0]
        assert segment.rstrip("\n").endswith("```")
        assert _fence_lines(segment) == 2


def test_indented_lines_after_a_blank_line_are_not_a_cut_point() -> None:
    text = "- item\n\n" * 2 + "  continued paragraph of the item\n" + "z" * 50 + "\n"
    splitter = MarkdownSplitter(4)
    segments = _segments([splitter.feed(text)])
    assert all(not s.startswith(" ") for s in segments)


def test_a_burst_is_cut_at_its_last_clean_boundary_a_slow_stream_only_every_freeze_at() -> None:
    text = sample_markdown(20_000)
    burst = MarkdownSplitter(8 * 1024).feed(text)  # a short answer arriving whole
    assert "".join(p for p in burst if isinstance(p, str)) == text
    assert isinstance(burst[-2], Cut)
    tail = burst[-1]
    assert isinstance(tail, str) and len(tail) < 2 * 1024  # what the live widget gets
    splitter = MarkdownSplitter(8 * 1024)
    slow = _segments([splitter.feed(part) for part in chunks(text, 100)])
    assert all(len(segment) >= 8 * 1024 for segment in slow[:-1])


# -- the widgets ----------------------------------------------------------------------------


@pytest.mark.heavy
async def test_two_thousand_deltas_come_out_whole_with_a_bounded_widget_count() -> None:
    text = sample_markdown(60_000)
    message = AssistantMessage()
    app = WidgetApp(message)
    async with app.run_test(size=(100, 40)):
        most = 0
        for index, delta in enumerate(chunks(text, 2_000), 1):
            message.append(delta)
            if index % 8 == 0:
                await message.body.wait_idle()
                most = max(most, len(message.query("*")))
        message.finish()
        await message.body.wait_idle()
        frozen = list(message.query(FrozenMarkdown))
        assert message.text == text
        assert "".join(f.source for f in frozen) == text
        assert not message.query(Markdown)  # the live tail was rendered once, then frozen
        assert len(frozen) >= 6
        # A 60 KB answer through one Markdown widget is over 500 widgets; frozen, one segment's
        # (the largest live segment of this text alone is about 250, measured once idle).
        assert most < 300


@pytest.mark.heavy
async def test_a_fence_across_the_freeze_size_stays_in_one_widget() -> None:
    text = "Intro paragraph.\n\n" + "word " * 100 + "\n\n" + FENCE + "\nThe end.\n"
    body = SegmentedMarkdown(freeze_at=300)
    app = WidgetApp(body)
    async with app.run_test(size=(100, 40)):
        for index, delta in enumerate(chunks(text, 300), 1):
            body.append(delta)
            if index % 5 == 0:
                await body.wait_idle()
                for live in body.query(Markdown):  # the fence is never split while live either
                    assert _fence_lines(live.source) in (0, 1, 2)
        body.finish()
        await body.wait_idle()
        sources = [f.source for f in body.query(FrozenMarkdown)]
        assert len(sources) >= 2
        holding = [s for s in sources if "```python" in s]
        assert len(holding) == 1
        assert FENCE in holding[0]


async def test_text_finished_before_mount_is_frozen_without_a_live_widget() -> None:
    text = sample_markdown(30_000)
    message = AssistantMessage()
    message.append(text)
    message.finish()
    app = WidgetApp(message)
    async with app.run_test(size=(100, 40)):
        await message.body.wait_idle()
        assert "".join(f.source for f in message.query(FrozenMarkdown)) == text
        assert not message.query(Markdown)


async def test_discard_greys_out_the_text_and_shows_the_reason() -> None:
    message = AssistantMessage()
    app = WidgetApp(message)
    reason = "turn discarded: the stream was cut; nothing ran"
    async with app.run_test(size=(100, 20)) as pilot:
        message.append("The answer was going to be")
        await message.body.wait_idle()
        message.discard(reason)
        message.append(" more text that must not show")
        await message.body.wait_idle()
        await pilot.pause()
        assert message.has_class("-discarded")
        assert message.discarded == reason
        screen = app.export_screenshot()
        assert "turn&#160;discarded:&#160;the&#160;stream&#160;was&#160;cut" in screen
        assert "must&#160;not&#160;show" not in screen
        assert message.text == "The answer was going to be"


async def test_hostile_model_text_is_shown_literally_and_no_escape_reaches_the_screen() -> None:
    message = AssistantMessage()
    reasoning = ReasoningBlock()
    app = WidgetApp(reasoning, message)
    async with app.run_test(size=(120, 20)) as pilot:
        message.append("Look: " + HOSTILE + "\n")
        reasoning.append("thinking " + HOSTILE)
        reasoning.collapsed = False
        await message.body.wait_idle()
        await pilot.pause()
        await reasoning.body.wait_idle()
        await pilot.pause()
        for screen in (app.export_screenshot(),):  # live Markdown
            assert "\x1b" not in screen and "\x07" not in screen
            assert screen.count("[@click=app.quit]") == 2
            assert "\\x1b]52;c;SGVsbG8=\\x07" in screen
        message.finish()
        await message.body.wait_idle()
        await pilot.pause()
        screen = app.export_screenshot()  # frozen
        assert "\x1b" not in screen
        assert screen.count("[@click=app.quit]") == 2
        assert app.is_running


async def test_reasoning_is_collapsed_counts_characters_and_renders_only_when_opened() -> None:
    block = ReasoningBlock()
    app = WidgetApp(block)
    async with app.run_test(size=(80, 20)) as pilot:
        rng = random.Random(1)
        text = "".join(rng.choice("abc \n") for _ in range(5_000))
        for part in chunks(text, 50):
            block.append(part)
        await pilot.pause()
        assert block.collapsed
        assert block.title == "thinking… 5,000 chars"
        # Nothing rendered while nobody looks.
        assert not block.body.query(FrozenMarkdown) and not block.body.query(Markdown)
        block.finish()
        assert block.title == "thought · 5,000 chars"
        block.collapsed = False
        await pilot.pause()
        await block.body.wait_idle()
        assert "".join(f.source for f in block.body.query(FrozenMarkdown)) == text
        assert block.text == text
