"""A finished bullet list stays where it streamed: the frozen rendering (rich, FrozenMarkdown)
puts bullets and their text in the same columns as Textual's streaming Markdown widget."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from tui_agent.ui.widgets.frozen_markdown import FrozenMarkdown

from .approval_prompt_app import screen_text
from .support.waiting import wait_for

SOURCE = (
    "Intro line\n\n- alpha item\n- beta item that is long enough to wrap onto a second line "
    "of the list at this width\n\nEnd.\n"
)


class Both(App[None]):
    def compose(self) -> ComposeResult:
        yield Markdown(SOURCE)
        yield FrozenMarkdown(SOURCE)


def rows(text: str, word: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if word in line]


async def test_bullets_are_in_the_same_columns_streaming_and_frozen() -> None:
    app = Both()
    async with app.run_test(size=(60, 30)) as pilot:
        drawn = lambda: len(rows(screen_text(app), "End.")) == 2  # noqa: E731
        await wait_for(pilot, drawn, "both answers")
        text = screen_text(app)
        for word in ("Intro", "alpha", "beta", "second", "End."):
            streaming, frozen = rows(text, word)
            assert streaming == frozen, (word, streaming, frozen)
