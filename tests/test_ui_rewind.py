"""The app's rewind: r on one of your messages (or F5) opens the rewind screen; it shows which
files will change before anything does, starts on Cancel, and rewinds files, conversation or
both (the conversation continues in a new session)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from tui_agent.session.records import RewindRecord
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.rewind_action import open_rewind
from tui_agent.ui.screens.rewind import RewindScreen
from tui_agent.ui.widgets.user_message import UserMessage
from tui_agent.wiring.host_options import HostOptions

from .approval_prompt_app import screen_text
from .ui_app_helpers import SIZE, send, wait_for, wait_text


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("config", "data", "state"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(f"XDG_{name.upper()}_HOME", str(tmp_path / name))
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("# Sample\n")
    return ws


async def _choose(pilot: Pilot[None], label: str) -> None:
    """Move the screen's menu to ``label`` with the arrow keys and press Enter."""
    screen = pilot.app.screen
    assert isinstance(screen, RewindScreen)
    menu = screen.query_one(OptionList)
    labels = [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]
    target = next(i for i, text in enumerate(labels) if text.startswith(label))
    assert menu.highlighted is not None
    for _ in range(target - menu.highlighted):
        await pilot.press("down")
    await pilot.press("enter")


async def _agent_writes(pilot: Pilot[None], app: TuiAgentApp, ws: Path) -> None:
    app.set_approval_mode("auto-all", confirmed=True)
    await send(pilot, "write notes.txt saying hello")
    await wait_for(pilot, lambda: (ws / "notes.txt").exists() and not app.busy, "the write")


async def test_r_on_a_message_rewinds_files_after_showing_them(workspace: Path) -> None:
    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(workspace)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        await _agent_writes(pilot, app, workspace)
        message = app.query_one(UserMessage)
        message.focus()
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), "the rewind screen")
        await wait_text(pilot, "Rewind to just before which of your messages?")
        await pilot.press("enter")  # message 1, preselected
        await wait_text(pilot, "notes.txt")
        text = screen_text(app)
        assert "delete" in text and "made after that point" in text
        assert (workspace / "notes.txt").exists()  # nothing changed yet
        menu = app.screen.query_one(OptionList)
        assert menu.highlighted == 0 and "Cancel" in str(menu.get_option_at_index(0).prompt)
        await _choose(pilot, "Rewind files only")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindScreen), "the rewind")
        assert not (workspace / "notes.txt").exists()
        await wait_text(pilot, "rewound; files: 1 deleted")
        assert app.host is not None
        records = app.host.store.load(app.host.writer.session_id).records
        assert [type(r) for r in records if isinstance(r, RewindRecord)] == [RewindRecord]
        # The palette's "Rewind: undo the last rewind": the file comes back.
        open_rewind(app, undo=True)
        await wait_text(pilot, "Undo the last rewind")
        await _choose(pilot, "Undo the last rewind")
        await wait_for(pilot, lambda: (workspace / "notes.txt").exists(), "the undo")
        await pilot.press("ctrl+q")


async def test_both_continues_in_the_rewound_conversation(workspace: Path) -> None:
    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(workspace)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        await _agent_writes(pilot, app, workspace)
        assert app.host is not None
        first = app.host.writer.session_id
        await pilot.press("f5")
        await wait_text(pilot, "Rewind to just before which of your messages?")
        await pilot.press("enter")
        await wait_text(pilot, "notes.txt")
        await _choose(pilot, "Rewind files and conversation")
        await wait_for(
            pilot,
            lambda: app.host is not None and app.host.writer.session_id != first,
            "the switch to the rewound conversation",
        )
        assert not (workspace / "notes.txt").exists()
        assert not app.query(UserMessage)  # the new session ends before message 1
        await pilot.press("ctrl+q")


async def test_the_picker_is_as_tall_as_its_list(workspace: Path) -> None:
    """No empty rows between the question and the messages (there were 18 at 80x24)."""
    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(workspace)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        await _agent_writes(pilot, app, workspace)
        await pilot.press("f5")
        await wait_text(pilot, "Rewind to just before which of your messages?")
        lines = screen_text(app).splitlines()
        question = next(i for i, line in enumerate(lines) if "Rewind to just before" in line)
        message = next(i for i, line in enumerate(lines) if "write notes.txt" in line and i > 2)
        assert message - question <= 3, "\n".join(lines[question : message + 1])
        await pilot.press("enter")
        await wait_text(pilot, "notes.txt")  # the plan: "(1 checkpoint after it)", wrapped
        assert "1 checkpoint after it" in " ".join(screen_text(app).replace("│", " ").split())
        await pilot.press("escape")
        await pilot.press("ctrl+q")
