"""The display pipeline cannot die silently: a failure is logged and the rest of the text is shown
plainly, kept up to date until the answer is finished (issue 19).

The failures are injected through the widget's own seams (``make_live``, ``make_frozen``) with
widgets that really fail, not by patching private code."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator

import pytest
from rich.text import Text
from textual.await_complete import AwaitComplete
from textual.widget import Widget
from textual.widgets import Markdown, Static

from tests.ui_stream_helpers import IDLE_TIMEOUT_S
from tests.ui_transcript_helpers import WidgetApp, chunks, sample_markdown
from tui_agent.ui.widgets.frozen_markdown import FrozenMarkdown
from tui_agent.ui.widgets.segmented_markdown import SegmentedMarkdown

LOGGER = "tui_agent.ui.widgets.segmented_markdown"


class BrokenMarkdown(Markdown):
    """A Markdown whose ``append`` fails from its ``fail_at``-th call on, with ``error``."""

    def __init__(self, source: str, fail_at: int, error: BaseException) -> None:
        super().__init__(source)
        self.calls = 0
        self.fail_at = fail_at
        self.error = error

    def append(self, markdown: str) -> AwaitComplete:
        self.calls += 1
        if self.calls < self.fail_at:
            return super().append(markdown)

        async def fail() -> None:
            raise self.error

        return AwaitComplete(fail())


class BrokenLive(SegmentedMarkdown):
    def __init__(self, error: BaseException, fail_at: int = 1) -> None:
        super().__init__(freeze_at=1024)
        self.error = error
        self.fail_at = fail_at

    def make_live(self, source: str) -> Markdown:
        return BrokenMarkdown(source, self.fail_at, self.error)


class BrokenFrozen(SegmentedMarkdown):
    """Freezing the second segment fails."""

    def __init__(self) -> None:
        super().__init__(freeze_at=1024)
        self.frozen = 0

    def make_frozen(self, display: str) -> Widget:
        self.frozen += 1
        if self.frozen == 2:
            raise ValueError("this segment cannot be rendered")
        return super().make_frozen(display)


def _plain_text(body: SegmentedMarkdown) -> str:
    plains = list(body.query(".plain").results(Static))
    assert len(plains) == 1
    content = plains[0].content
    assert isinstance(content, Text)
    return content.plain


def _shown(body: SegmentedMarkdown) -> str:
    """What the widgets show: the frozen segments, then the plain rest."""
    return "".join(f.source for f in body.query(FrozenMarkdown)) + _plain_text(body)


async def _stream(
    body: SegmentedMarkdown, text: str, caplog: pytest.LogCaptureFixture, frozen: int | None = None
) -> None:
    app = WidgetApp(body)
    with caplog.at_level(logging.ERROR, logger=LOGGER), _caught(caplog):
        async with app.run_test(size=(100, 40)) as pilot:
            for index, delta in enumerate(chunks(text, 200), 1):
                body.append(delta)
                if index <= 3:
                    # One at a time first: the live widget is built, then appended to (where a
                    # live failure is injected), however slowly the machine runs the pump.
                    await asyncio.wait_for(body.wait_idle(), IDLE_TIMEOUT_S)
                elif index % 5 == 0:
                    await asyncio.sleep(0.002)  # the pump keeps up: several appends, freezes
            await asyncio.wait_for(body.wait_idle(), IDLE_TIMEOUT_S)
            assert body.failed  # failed while streaming, and kept showing what came after
            assert _shown(body) == text
            body.finish()
            await asyncio.wait_for(body.wait_idle(), IDLE_TIMEOUT_S)
            await pilot.pause()
            assert _shown(body) == text
            assert not body.query(Markdown)  # the live widget that failed was taken away
            if frozen is not None:
                assert len(body.query(FrozenMarkdown)) == frozen
    assert any(record.levelno == logging.ERROR for record in caplog.records)


async def test_a_failing_live_widget_is_logged_and_the_rest_shown_plainly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    await _stream(BrokenLive(RuntimeError("markdown-it choked")), sample_markdown(12_000), caplog)
    assert "markdown-it choked" in caplog.text


async def test_a_stray_cancelled_error_is_a_failure_not_a_silent_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # What Textual 8.2.8's MarkdownStream.stop() raised: a CancelledError no one asked for.
    await _stream(BrokenLive(asyncio.CancelledError()), sample_markdown(12_000), caplog)
    assert "CancelledError" in caplog.text


async def test_a_segment_that_cannot_be_frozen_is_logged_and_the_rest_shown_plainly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    text = sample_markdown(12_000)
    body = BrokenFrozen()
    await _stream(body, text, caplog, frozen=1)  # the first segment, frozen before the failure
    assert "cannot be rendered" in caplog.text


async def test_removing_the_widget_mid_stream_is_not_a_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    body = SegmentedMarkdown(freeze_at=1024)
    app = WidgetApp(body)
    with caplog.at_level(logging.ERROR, logger=LOGGER), _caught(caplog):
        async with app.run_test(size=(100, 40)):
            for delta in chunks(sample_markdown(12_000), 100):
                body.append(delta)
                await asyncio.sleep(0)
            await body.remove()  # a session switch takes the transcript's widgets away
            await asyncio.wait_for(body.wait_idle(), IDLE_TIMEOUT_S)
    assert not caplog.records


@contextlib.contextmanager
def _caught(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """caplog's handler on the app's own logger: the app's log set-up (run by other tests in the
    same worker) stops its records from propagating to the root logger caplog listens on."""
    logger = logging.getLogger(LOGGER)
    logger.addHandler(caplog.handler)
    try:
        yield
    finally:
        logger.removeHandler(caplog.handler)
