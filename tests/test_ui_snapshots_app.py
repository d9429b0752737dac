"""Snapshots of the real app's main screens against the offline demo model at pace 0.

Deterministic: the demo model answers the same conversation the same way; the workspace is a
fixed set of files in a temporary folder whose path is never on screen; no session id or time
is shown; the tool card's clock is frozen so no elapsed time or spinner frame can differ.

Regenerate with ``pytest tests/test_ui_snapshots_app.py --snapshot-update`` and look at the
SVGs in ``tests/__snapshots__/test_ui_snapshots_app/`` (as PNGs: ``rsvg-convert``) before
keeping them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.wiring.host_options import HostOptions

from .approval_prompt_app import screen_still
from .ui_app_helpers import armed_prompt, send, wait_for, wait_idle_agent, wait_text

SIZE = (120, 40)
PROVIDER_KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
)
NOTES_TXT = "hello\nThese are the demo notes.\n"
NOTES_MD = "# Notes\n\n- TODO: write the README\n- ship it\n"

Snap = Callable[..., bool]
Step = Callable[[Pilot[None]], Awaitable[None]]


def demo_workspace(root: Path) -> Path:
    workspace = root / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "notes.txt").write_text(NOTES_TXT)
    (workspace / "notes.md").write_text(NOTES_MD)
    (workspace / "README.md").write_text("# Demo project\n\nNothing to see here.\n")
    (workspace / "src" / "main.py").write_text('print("hello")\n')
    return workspace


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("config", "data", "state"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(f"XDG_{name.upper()}_HOME", str(tmp_path / name))
    for key in PROVIDER_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    monkeypatch.setattr(ToolCallCard, "clock", staticmethod(lambda: 1000.0))
    return demo_workspace(tmp_path)


def demo_app(workspace: Path, theme: str | None = None) -> TuiAgentApp:
    return TuiAgentApp(HostOptions(profile="demo", workspace=str(workspace)), theme_name=theme)


async def booted(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, TuiAgentApp)
    await wait_for(pilot, lambda: app.host is not None, "the boot worker")
    await wait_text(pilot, "offline demo model")
    app.query_one(PromptInput).cursor_blink = False  # the cursor always drawn: no blink phase


def after(*steps: Step) -> Step:
    async def run(pilot: Pilot[None]) -> None:
        await booted(pilot)
        for step in steps:
            await step(pilot)
        await screen_still(pilot)  # drawn afresh and holding still, however loaded the machine

    return run


def asking(text: str) -> Step:
    async def step(pilot: Pilot[None]) -> None:
        await send(pilot, text)

    return step


async def finished(pilot: Pilot[None]) -> None:
    await wait_idle_agent(pilot)


async def prompted(pilot: Pilot[None]) -> None:
    await armed_prompt(pilot)


def test_idle_start_screen(snap_compare: Snap, workspace: Path) -> None:
    assert snap_compare(demo_app(workspace), terminal_size=SIZE, run_before=after())


@pytest.mark.parametrize("theme", ["dark", "light", "high-contrast"])
def test_start_screen_in_each_theme(snap_compare: Snap, workspace: Path, theme: str) -> None:
    app = demo_app(workspace, theme)
    assert snap_compare(app, terminal_size=SIZE, run_before=after())


def test_a_finished_answer(snap_compare: Snap, workspace: Path) -> None:
    run_before = after(asking("hi, what can you do?"), finished)
    assert snap_compare(demo_app(workspace), terminal_size=SIZE, run_before=run_before)


def test_a_tool_card_waiting_with_the_approval_prompt(snap_compare: Snap, workspace: Path) -> None:
    run_before = after(asking("run ls -l src"), prompted)
    assert snap_compare(demo_app(workspace), terminal_size=SIZE, run_before=run_before)


def test_write_file_approval_with_a_diff(snap_compare: Snap, workspace: Path) -> None:
    run_before = after(asking("write notes.txt saying hello, world"), prompted)
    assert snap_compare(demo_app(workspace), terminal_size=SIZE, run_before=run_before)


def test_a_truncated_turn(snap_compare: Snap, workspace: Path) -> None:
    async def noticed(pilot: Pilot[None]) -> None:
        await wait_idle_agent(pilot)
        await wait_text(pilot, "press Ctrl+R to send the message again")

    run_before = after(asking("show me a truncated turn"), noticed)
    assert snap_compare(demo_app(workspace), terminal_size=SIZE, run_before=run_before)


def test_the_workspace_trust_question(snap_compare: Snap, workspace: Path) -> None:
    """A workspace that brings AGENTS.md and a .mcp.json: one question, every server whole, the
    keys line saying how much is below before t can trust."""
    (workspace / "AGENTS.md").write_text("# Rules\n\nRun the tests before you commit.\n")
    servers = {
        f"tool{i}": {"command": "node", "args": ["server.js", str(i)], "cwd": "/srv/tool"}
        for i in range(1, 5)
    }
    servers["web"] = {"url": "https://mcp.example/x", "headers": {"Authorization": "${TEAM}"}}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))

    async def asked(pilot: Pilot[None]) -> None:
        from tui_agent.ui.workspace_trust import WorkspaceTrustScreen

        app = pilot.app
        assert isinstance(app, TuiAgentApp)
        await wait_for(pilot, lambda: isinstance(app.screen, WorkspaceTrustScreen), "question")
        app.query_one(PromptInput).cursor_blink = False
        await screen_still(pilot)

    assert snap_compare(demo_app(workspace), terminal_size=SIZE, run_before=asked)
