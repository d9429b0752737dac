"""The approval prompt's line of keys takes exactly the rows its text needs, whatever changed.

Textual caches a widget's height by width alone. The keys, the note above them and the decision
that replaces them change at one width; a stale height once left five empty rows under the keys
of an approval prompt (seen in a snapshot on a loaded machine).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.widgets import Static

from tui_agent.approval.decision import deny
from tui_agent.ui.widgets.approval_keys import KeyHints, describe_decision, key_pairs

PAIRS = key_pairs("choose", kept=None, prefix=True, rest=True)


class HintsApp(App[None]):
    def __init__(self, *, early: bool = False) -> None:
        super().__init__()
        self.early = early

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield KeyHints(id="keys")
            yield Static("below", id="below")

    def on_mount(self) -> None:
        if self.early:  # before the first layout, when the hints have no width yet
            self.hints.show_keys(PAIRS, arming=False)

    @property
    def hints(self) -> KeyHints:
        return self.query_one(KeyHints)


def rows(app: HintsApp) -> tuple[int, int]:
    """(rows the hints take on screen, lines of their text at that width)."""
    hints = app.hints
    text = hints.render()
    return hints.region.height, len(text.wrap(app.console, hints.size.width))


async def test_keys_shown_before_the_first_layout_leave_no_empty_rows() -> None:
    app = HintsApp(early=True)
    async with app.run_test(size=(120, 20)) as pilot:
        for _ in range(3):
            await pilot.pause()
        shown, needed = rows(app)
        assert shown == needed, (shown, needed)
        assert app.query_one("#below").region.y == app.hints.region.bottom


async def test_height_asked_at_a_width_is_the_lines_at_that_width() -> None:
    """Layout asks the height for a width before the widget has that width (at first it has
    none); answered from the current width, seven rows were kept where two were drawn."""
    app = HintsApp()
    async with app.run_test(size=(120, 20)) as pilot:
        app.hints.show_keys(PAIRS, arming=True, note="press Tab to answer")
        await pilot.pause()
        asked = {
            width: app.hints.get_content_height(Size(width, 20), Size(width, 20), width)
            for width in (20, 50, 120)
        }
        for width in (20, 50, 120):
            await pilot.resize_terminal(width, 20)
            for _ in range(3):
                await pilot.pause()
            assert app.hints.size.width == width
            assert asked[width] == app.hints.region.height == rows(app)[1], (width, asked)


async def test_height_follows_the_note_the_keys_and_the_message() -> None:
    app = HintsApp()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        seen: list[int] = []
        steps = [
            lambda: app.hints.show_keys(PAIRS, arming=True, note="press Tab to answer"),
            lambda: app.hints.show_keys(PAIRS, arming=False),
            lambda: app.hints.show_keys(PAIRS[:1], arming=False),
            lambda: app.hints.show_keys(PAIRS, arming=True, note="keep typing " * 8),
            lambda: app.hints.show_message(describe_decision(deny("no"))),
        ]
        for step in steps:
            step()
            await pilot.pause()
            await pilot.pause()
            shown, needed = rows(app)
            assert shown == needed, (shown, needed)
            below = app.query_one("#below").region
            assert below.y == app.hints.region.bottom  # nothing empty between
            seen.append(shown)
        assert seen[0] > seen[1] > seen[2] == 1 and seen[3] > seen[1] and seen[4] == 1


async def test_height_follows_the_width() -> None:
    app = HintsApp()
    async with app.run_test(size=(120, 20)) as pilot:
        app.hints.show_keys(PAIRS, arming=False)
        await pilot.pause()
        wide = rows(app)
        await pilot.resize_terminal(40, 20)
        await pilot.pause()
        await pilot.pause()
        narrow = rows(app)
        assert wide[0] == wide[1] and narrow[0] == narrow[1] and narrow[0] > wide[0]
