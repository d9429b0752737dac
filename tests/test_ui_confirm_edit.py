"""Edited arguments run only after the person has seen the diff and pressed an armed ``y``.

``e`` on the approval prompt, then Ctrl+S: a dialog shows the unified diff of the model's
arguments and the edited ones (indented JSON, sorted keys, safe text); ``y`` before it arms
decides nothing, ``n`` and Esc go back to the editor with the edit kept."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import TextArea

from tui_agent.approval import edit
from tui_agent.ui.arming import ARMING_S
from tui_agent.ui.arming import PAUSE_S as TYPING_PAUSE_S
from tui_agent.ui.edited_arguments import review_diff
from tui_agent.ui.screens.confirm_edit import ConfirmEdit

from .approval_prompt_app import (
    PromptApp,
    confirm_edit,
    make_request,
    screen_text,
    wait_until_armed,
)
from .support.clock import ManualClock

SIZE = (120, 40)
WRITE = make_request("write_file", {"path": "a.txt", "content": "from the model\n"})
EDITED = '{"path": "a.txt", "content": "[b]yours[/b] \\u202eevil\\n"}'


async def _open_confirm(pilot: Pilot[None], app: PromptApp, text: str) -> ConfirmEdit:
    await wait_until_armed(pilot, app.prompt)
    await pilot.press("e")
    app.query_one("#editor", TextArea).text = text
    await wait_until_armed(pilot, app.prompt)  # the editor re-arms the prompt
    await pilot.press("ctrl+s")
    for _ in range(200):
        if isinstance(app.screen, ConfirmEdit):
            return app.screen
        await pilot.pause(0.02)
    raise AssertionError("no diff was shown after Ctrl+S")


def test_the_review_diff_is_a_unified_diff_of_sorted_pretty_json() -> None:
    diff = review_diff('{"path":"a.txt","content":"old"}', '{"content": "new", "path": "a.txt"}')
    assert diff == [
        "--- the model's arguments",
        "+++ your edit",
        "@@ -1,4 +1,4 @@",
        " {",
        '-  "content": "old",',
        '+  "content": "new",',
        '   "path": "a.txt"',
        " }",
    ]
    assert review_diff('{"a": 1, "b": 2}', '{"b": 2, "a": 1}') == []


async def test_the_diff_is_shown_and_nothing_runs_before_an_armed_y(tmp_path: Path) -> None:
    clock = ManualClock()  # the test's: time passes only when it says so
    app = PromptApp(WRITE, tmp_path, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _open_confirm(pilot, app, EDITED)
        # At the instant the dialog came (no time passed since): y decides nothing.
        assert not dialog.guard.armed()
        await pilot.press("y")
        assert app.decisions == [] and app.future is not None and not app.future.done()
        assert app.screen is dialog
        text = screen_text(app)
        assert "--- the model's arguments" in text and "+++ your edit" in text
        assert '-  "content": "from the model\\n",' in text
        # Shown as text, never markup; the hidden character as a visible escape.
        assert '+  "content": "[b]yours[/b] <U+202E>evil\\n",' in text
        assert "\u202e" not in text
        clock.advance(TYPING_PAUSE_S + ARMING_S + 0.1)  # the person reads, then answers
        await confirm_edit(pilot)
        assert app.decisions == [edit(EDITED)]
        assert app.prompt.disabled


async def test_n_and_escape_go_back_to_the_editor_with_the_edit_kept(tmp_path: Path) -> None:
    app = PromptApp(WRITE, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _open_confirm(pilot, app, EDITED)
        await pilot.press("escape")  # at any time
        assert not isinstance(app.screen, ConfirmEdit)
        assert app.prompt.mode == "edit"
        assert app.query_one("#editor", TextArea).text == EDITED
        assert app.decisions == []
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("ctrl+s")
        await confirm_edit(pilot, run=False)  # an armed n
        assert not isinstance(app.screen, ConfirmEdit)
        assert app.prompt.mode == "edit" and app.decisions == []
        assert app.future is not None and not app.future.done()
        await pilot.press("escape")  # and back to the choice: the model's arguments, as asked
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("y")
        assert app.decisions[0].kind == "approve"


async def test_an_edit_nested_too_deeply_is_refused_in_the_editor(tmp_path: Path) -> None:
    """Pasting 10,000 brackets and Ctrl+S once raised RecursionError out of the prompt."""
    app = PromptApp(WRITE, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("e")
        app.query_one("#editor", TextArea).text = "[" * 10_000 + "]" * 10_000
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "nested too deeply" in screen_text(app)
        assert app.prompt.mode == "edit" and app.decisions == []
        assert not isinstance(app.screen, ConfirmEdit)
