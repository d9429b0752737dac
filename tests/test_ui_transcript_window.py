"""The transcript mounts a window of recent items, loads older ones on scroll-up, and follows
new content only while the user is at the bottom."""

from __future__ import annotations

import pytest
from textual.widget import Widget
from textual.widgets import Static

from tests.ui_transcript_helpers import HOSTILE, WidgetApp, sample_markdown
from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.frozen_markdown import FrozenMarkdown
from tui_agent.ui.widgets.notice import Notice
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.ui.widgets.transcript import OlderHint, Transcript
from tui_agent.ui.widgets.user_message import UserMessage


def fill(transcript: Transcript, count: int) -> None:
    """``count`` items of every kind, as a resumed session adds them (all in one go)."""
    for index in range(count):
        kind = index % 5
        if kind == 0:
            transcript.add_user(f"question {index}")
        elif kind == 1:
            answer = transcript.start_assistant()
            answer.append(f"answer **{index}**\n\n- a point\n- another\n")
            answer.finish()
        elif kind == 2:
            card = transcript.add_tool_card(0, f"call_{index}", "read_file")
            card.set_arguments_summary(f"src/file_{index}.py")
            card.set_state("done")
            card.set_result(f"contents of file {index}\n", False)
        elif kind == 3:
            reasoning = transcript.start_reasoning()
            reasoning.append(f"thinking about {index}")
            reasoning.finish()
        else:
            transcript.add_notice(f"notice {index}", "info")


def oldest_text(items: list[Widget]) -> str:
    first = items[0]
    if isinstance(first, UserMessage | Notice):
        return first.text
    return type(first).__name__


async def settle(transcript: Transcript) -> None:
    for answer in transcript.query(AssistantMessage):
        await answer.body.wait_idle()


@pytest.mark.heavy
async def test_five_thousand_items_mount_only_the_window_and_older_load_in_a_batch() -> None:
    transcript = Transcript(window=50, batch_size=10)
    app = WidgetApp(transcript)
    async with app.run_test(size=(100, 40)) as pilot:
        fill(transcript, 5_000)
        await pilot.pause()
        await settle(transcript)
        assert transcript.item_count == 5_000
        assert len(transcript.mounted_items) == 50
        assert transcript.first_mounted == 4_950
        assert len(app.screen.query("*")) < 500
        assert transcript.is_vertical_scroll_end
        hint = transcript.query_one(OlderHint)
        assert hint.display and "4,950 earlier items" in str(hint.render())

        transcript.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert len(transcript.mounted_items) == 60
        assert transcript.first_mounted == 4_940
        assert oldest_text(transcript.mounted_items) == "question 4940"

        assert await transcript.load_older() == 10
        await pilot.pause()
        assert len(transcript.mounted_items) == 70
        assert not transcript.is_vertical_scroll_end


async def test_loading_older_keeps_the_view_where_it_was() -> None:
    transcript = Transcript(window=30, batch_size=10)
    app = WidgetApp(transcript)
    async with app.run_test(size=(100, 30)) as pilot:
        for index in range(200):
            transcript.add_user(f"question {index}")
        await pilot.pause()
        transcript.scroll_to(y=2, animate=False, immediate=True)  # near the top, not at it
        await pilot.pause()
        oldest = transcript.mounted_items[0]
        assert isinstance(oldest, UserMessage) and oldest.text == "question 170"
        before = oldest.region.y
        assert await transcript.load_older() == 10
        await pilot.pause()
        await pilot.pause()
        first = transcript.mounted_items[0]
        assert isinstance(first, UserMessage) and first.text == "question 160"
        assert oldest.region.y == before  # the batch went in above without moving the view
        assert transcript.scroll_y > 2


async def test_following_the_bottom_and_staying_put_when_scrolled_up() -> None:
    transcript = Transcript(window=40, batch_size=10)
    app = WidgetApp(transcript)
    async with app.run_test(size=(100, 20)) as pilot:
        for index in range(60):
            transcript.add_notice(f"line {index}")
        await pilot.pause()
        assert transcript.is_vertical_scroll_end
        transcript.add_user("one more")
        await pilot.pause()
        assert transcript.is_vertical_scroll_end  # followed

        transcript.scroll_to(y=transcript.scroll_y - 10, animate=False, immediate=True)
        await pilot.pause()
        before = transcript.scroll_y
        mounted = len(transcript.mounted_items)
        for index in range(30):
            transcript.add_notice(f"later {index}")
        await pilot.pause()
        assert transcript.scroll_y == before  # not dragged down
        assert len(transcript.mounted_items) == mounted + 30  # nothing above was removed

        transcript.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        transcript.add_notice("back at the bottom")
        await pilot.pause()
        assert len(transcript.mounted_items) == 40  # following again: trimmed to the window
        assert transcript.is_vertical_scroll_end


@pytest.mark.heavy
async def test_a_streaming_answer_is_never_unmounted() -> None:
    transcript = Transcript(window=20, batch_size=5)
    app = WidgetApp(transcript)
    async with app.run_test(size=(100, 20)) as pilot:
        answer = transcript.start_assistant()
        answer.append("still streaming")
        for index in range(100):
            transcript.add_notice(f"notice {index}")
        await pilot.pause()
        assert answer.is_mounted
        assert transcript.first_mounted == 0
        answer.finish()
        transcript.add_notice("after the answer finished")
        await pilot.pause()
        assert not answer.is_attached
        assert len(transcript.mounted_items) == 20


async def test_a_card_pushed_out_and_loaded_again_shows_later_updates() -> None:
    transcript = Transcript(window=10, batch_size=10)
    app = WidgetApp(transcript)
    async with app.run_test(size=(100, 20)) as pilot:
        card = transcript.add_tool_card(0, "call_1", "run_command")
        for index in range(30):
            transcript.add_notice(f"notice {index}")
        await pilot.pause()
        assert not card.is_attached
        card.set_state("running")
        card.set_state("done")
        card.set_result("all good\n", False)
        for _ in range(10):
            if transcript.first_mounted == 0:
                break
            assert await transcript.load_older() > 0
            await pilot.pause()
        assert transcript.first_mounted == 0
        rebuilt = transcript.query_one(ToolCallCard)
        assert rebuilt is not card
        assert rebuilt.has_class("-done")
        assert rebuilt.model is card.model


async def test_hostile_text_in_every_item_is_shown_literally() -> None:
    transcript = Transcript()
    app = WidgetApp(transcript)
    async with app.run_test(size=(200, 40)) as pilot:
        transcript.add_user(HOSTILE)
        answer = transcript.start_assistant()
        answer.append(HOSTILE)
        transcript.add_notice(HOSTILE, "error")
        card = transcript.add_tool_card(0, "c", HOSTILE)
        card.set_arguments_summary(HOSTILE)
        await pilot.pause()
        await answer.body.wait_idle()
        await pilot.pause()
        screen = app.export_screenshot()
        assert "\x1b" not in screen and "\x07" not in screen
        assert screen.count("[@click=app.quit]") == 5
        answer.finish()
        await answer.body.wait_idle()
        await pilot.pause()
        screen = app.export_screenshot()
        assert "\x1b" not in screen
        assert screen.count("[@click=app.quit]") == 5


@pytest.mark.heavy
async def test_short_content_sits_at_the_top_and_a_growing_answer_is_followed() -> None:
    transcript = Transcript()
    app = WidgetApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        transcript.add_user("hello")
        await pilot.pause()
        assert transcript.scroll_y == 0
        assert transcript.mounted_items[0].region.y <= 2  # not pushed to the bottom

        answer = transcript.start_assistant()

        async def stream(rounds: int) -> None:
            for index in range(rounds):
                answer.append(f"line {index}\n\nand more\n\nand more\n\n")
                await answer.body.wait_idle()
                await pilot.pause()

        await stream(10)
        assert transcript.max_scroll_y > 0
        assert transcript.is_vertical_scroll_end

        transcript.scroll_to(y=transcript.scroll_y - 5, animate=False, immediate=True)
        await pilot.pause()
        before = transcript.scroll_y
        await stream(4)
        assert transcript.scroll_y == before  # reading above: not dragged along

        transcript.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        await stream(4)
        assert transcript.is_vertical_scroll_end  # back at the end: followed again


async def test_the_end_is_followed_after_the_view_grows_past_its_content() -> None:
    """80x24, the first answer after an approval: the prompt under the transcript closes, the
    view grows past its content, and the answer that follows must be scrolled into view."""
    transcript = Transcript()
    prompt = Static("\n".join(f"prompt line {n}" for n in range(10)))
    prompt.styles.dock = "bottom"
    app = WidgetApp(transcript, prompt)
    async with app.run_test(size=(60, 20)) as pilot:
        for index in range(13):
            transcript.add_notice(f"notice {index}", "info")
        await pilot.pause()
        assert transcript.max_scroll_y > 0 and transcript.is_vertical_scroll_end
        await prompt.remove()  # the view grows from 10 to 20 rows: the 13 items fit
        await pilot.pause()
        answer = transcript.start_assistant()
        answer.append("\n\n".join(f"answer line {n}" for n in range(6)))
        answer.finish()
        await answer.body.wait_idle()
        await pilot.pause()
        await pilot.pause()
        assert transcript.max_scroll_y > 0
        assert transcript.is_vertical_scroll_end, (transcript.scroll_y, transcript.max_scroll_y)


async def test_a_long_answer_arriving_at_once_is_shown_from_its_end_in_the_first_frame() -> None:
    """Anchored in the frame the content first overflows: the top of an answer that came in one
    burst is never painted (so never rendered) only to be scrolled past."""
    transcript = Transcript()
    app = WidgetApp(transcript)
    async with app.run_test(size=(80, 20)) as pilot:
        transcript.add_user("hello")
        await pilot.pause()
        answer = transcript.start_assistant()
        answer.append(sample_markdown(20_000))
        answer.finish()
        await answer.body.wait_idle()
        await pilot.pause()
        await pilot.pause()
        frozen = list(answer.query(FrozenMarkdown))
        assert len(frozen) >= 3
        assert transcript.is_vertical_scroll_end
        assert frozen[0].rendered_width is None  # scrolled past unseen: never rendered
        assert frozen[-1].rendered_width is not None  # on screen
