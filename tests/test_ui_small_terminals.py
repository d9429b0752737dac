"""Small terminals: at 60x15 every part still works (the calls panel collapses and F2 brings it
back, the approval prompt shows every key, the message box stays on screen and takes text, a
call is approved), and snapshots of the main screens at 60x15 and 80x24 against the demo model.

Regenerate with ``pytest tests/test_ui_small_terminals.py --snapshot-update`` and look at the
SVGs in ``tests/__snapshots__/test_ui_small_terminals/`` before keeping them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from tui_agent.ui.widgets.approval_keys import KeyHints, key_pairs
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.side_panel import SidePanel
from tui_agent.ui.widgets.tool_card import ToolCallCard

from .approval_prompt_app import screen_text
from .test_ui_snapshots_app import (
    PROVIDER_KEYS,
    Snap,
    after,
    asking,
    booted,
    demo_app,
    demo_workspace,
    finished,
    prompted,
)
from .ui_app_helpers import armed_prompt, cards, send, wait_for, wait_idle_agent

SMALL = (60, 15)
SIZES = [pytest.param(SMALL, id="60x15"), pytest.param((80, 24), id="80x24")]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """As the app snapshots': isolated folders, the demo model at pace 0, a frozen card clock."""
    for name in ("config", "data", "state"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(f"XDG_{name.upper()}_HOME", str(tmp_path / name))
    for key in PROVIDER_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    monkeypatch.setattr(ToolCallCard, "clock", staticmethod(lambda: 1000.0))
    return demo_workspace(tmp_path)


async def settled(pilot: Pilot[None]) -> None:
    """The transcript scrolled to its end once it stopped growing (a stable scrollbar): on a
    loaded machine a card or the prompt below may still change size, so it is scrolled to the
    end again until its size, its view and its place held still for three looks in a row."""
    transcript = pilot.app.query_one("#transcript")
    await pilot.pause(0.2)
    seen, still = None, 0
    for _ in range(50):
        transcript.scroll_end(animate=False, immediate=True)
        await pilot.pause(0.1)
        now = (
            transcript.virtual_size,
            transcript.size,
            transcript.max_scroll_y,
            transcript.scroll_y,
            transcript.show_vertical_scrollbar,
        )
        still = still + 1 if now == seen else 0
        if still >= 3 and transcript.scroll_y == transcript.max_scroll_y:
            break
        seen = now
    # Under load Textual 8.2.8 may keep a scrollbar drawn for an earlier position (the same
    # settled state was shot with its thumb half a row apart): draw the scrollbars again.
    for bar in (transcript.vertical_scrollbar, transcript.horizontal_scrollbar):
        bar.refresh()
    await pilot.pause(0.1)


def on_screen(pilot: Pilot[None], widget: Widget) -> bool:
    region = widget.region
    return bool(region.height) and region.y >= 0 and region.bottom <= pilot.app.size.height


async def test_at_60x15_every_part_still_works(workspace: Path) -> None:
    app = demo_app(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await booted(pilot)
        panel = app.query_one(SidePanel)
        assert not panel.display  # collapsed
        await pilot.press("f2")
        assert panel.display
        await pilot.press("f2")
        assert not panel.display

        await send(pilot, "run ls -l src")
        prompt = await armed_prompt(pilot)
        box = app.query_one(PromptInput)
        assert on_screen(pilot, prompt) and on_screen(pilot, box)
        shown = screen_text(app)
        for key, label in key_pairs("choose", kept=None, prefix=True, rest=False):
            assert f" {key} " in shown and label in shown, (key, label)
        assert "always allow this exact command" in shown
        assert len(app.query_one(KeyHints).render().plain.splitlines()) >= 2  # wrapped
        assert "approval: ask" in shown and "tokens" in shown  # the status line, on two lines

        await pilot.press("y")
        await wait_idle_agent(pilot)
        assert [card.state for card in cards(app)] == ["done"]
        box.focus()
        await pilot.press("h", "i")
        assert box.text == "hi" and on_screen(pilot, box)


@pytest.mark.parametrize("size", SIZES)
def test_start_screen_small(snap_compare: Snap, workspace: Path, size: tuple[int, int]) -> None:
    assert snap_compare(demo_app(workspace), terminal_size=size, run_before=after(settled))


@pytest.mark.parametrize("size", SIZES)
def test_command_approval_small(snap_compare: Snap, workspace: Path, size: tuple[int, int]) -> None:
    run_before = after(asking("run ls -l src"), prompted, settled)
    assert snap_compare(demo_app(workspace), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_write_diff_approval_small(
    snap_compare: Snap, workspace: Path, size: tuple[int, int]
) -> None:
    run_before = after(asking("write notes.txt saying hello, world"), prompted, settled)
    assert snap_compare(demo_app(workspace), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_finished_answer_small(snap_compare: Snap, workspace: Path, size: tuple[int, int]) -> None:
    run_before = after(asking("hi, what can you do?"), finished, settled)
    assert snap_compare(demo_app(workspace), terminal_size=size, run_before=run_before)


async def test_at_60x15_the_session_browser_shows_its_keys_and_sessions(workspace: Path) -> None:
    app = demo_app(workspace)
    async with app.run_test(size=SMALL) as pilot:
        await booted(pilot)
        await send(pilot, "list the files")
        await armed_prompt(pilot)
        await pilot.press("y")
        await wait_idle_agent(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: "list the files" in screen_text(app), "the list")
        shown = screen_text(app)
        keys = " ".join(shown.split())  # the keys' line wraps, whole
        assert "Enter resume · r rename · d delete · f fork · Esc close" in keys, shown
        for column in ("Title", "Updated", "Profile/model"):
            assert column in shown, shown
        assert "demo/tui-agent-demo" in shown, shown
        table = app.screen.query_one("#sessions")
        assert on_screen(pilot, table) and table.size.height >= 8, table.size
