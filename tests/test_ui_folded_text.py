"""The argument view folds long lines at exactly the width and loses no character."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from tui_agent.ui.widgets.folded_text import FoldedText, fold_offsets


def test_fold_offsets() -> None:
    assert list(fold_offsets("", 4)) == [(0, 0)]
    assert list(fold_offsets("abcdefghij", 4)) == [(0, 4), (4, 8), (8, 10)]
    assert list(fold_offsets("abcd", 4)) == [(0, 4)]
    # Wide characters take two cells and are never split.
    assert list(fold_offsets("中文字x", 4)) == [(0, 2), (2, 4)]
    assert list(fold_offsets("a中文", 4)) == [(0, 2), (2, 3)]
    assert list(fold_offsets("中", 1)) == [(0, 1)]


class FoldApp(App[None]):
    CSS = "FoldedText { max-height: 100%; }"

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield FoldedText(self.text)


async def test_every_character_is_shown_spaces_at_breaks_included() -> None:
    line = "echo " + " ".join(f"word{number:03}" for number in range(60)) + "   "
    tabbed = "\tindented"
    app = FoldApp(Text(f"{line}\n{tabbed}\n"))
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        view = app.query_one(FoldedText)
        width = view.scrollable_content_region.width
        rows = [view.render_line(y).text for y in range(view.size.height)]
    assert view.row_count == -(-len(line) // width) + 2  # the line, the tabbed one, ""
    folded = rows[: view.row_count - 2]
    assert all(len(row) == width for row in folded)
    assert "".join(folded).startswith(line)
    assert rows[view.row_count - 2].startswith("        indented")  # tab expanded, never sent


async def test_a_long_text_scrolls_and_renders_only_what_is_visible() -> None:
    text = Text("\n".join(f"row {number}" for number in range(5000)))
    app = FoldApp(text)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        view = app.query_one(FoldedText)
        assert view.row_count == 5000
        assert view.size.height == 10
        view.scroll_end(animate=False)
        await pilot.pause()
        assert view.render_line(view.size.height - 1).text.startswith("row 4999")
