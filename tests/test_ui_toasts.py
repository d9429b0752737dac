"""Toasts over a dialog: the screen under a dialog still draws its own toasts, so the dialog's
must sit in the same rows, or each toast shows twice (seen at F3's AUTO-ALL question)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets._toast import ToastRack

from tui_agent.ui.screens.confirm_auto_all import ConfirmAutoAll

from .approval_prompt_app import screen_text
from .test_ui_snapshots_app import booted, demo_app, demo_workspace
from .ui_app_helpers import wait_for


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("config", "data", "state"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(f"XDG_{name.upper()}_HOME", str(tmp_path / name))
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    return demo_workspace(tmp_path)


async def test_a_toast_over_a_dialog_is_drawn_once(workspace: Path) -> None:
    app = demo_app(workspace)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await booted(pilot)
        await pilot.press("f3", "f3")  # plan, then auto-read: two toasts
        await pilot.press("f3")  # AUTO-ALL asks first
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmAutoAll), "the question")
        await pilot.pause()
        under, over = (screen.query_one(ToastRack) for screen in app.screen_stack[-2:])
        assert over.region == under.region
        shown = screen_text(app)
        assert shown.count("approval mode: auto-read") == 1, shown
        await pilot.press("ctrl+q")
