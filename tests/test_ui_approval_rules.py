"""F4 lists what is auto-approved; d revokes a rule for the session; s saves it to config.toml."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

import pytest

from tui_agent.approval.rules import AllowCommandPrefix, AllowTool
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.approval_rules import ApprovalRulesScreen
from tui_agent.wiring.host_options import HostOptions

from .ui_app_helpers import make_env


async def _booted(app: TuiAgentApp) -> None:
    async with asyncio.timeout(20):
        while app.host is None:
            await asyncio.sleep(0.02)


@pytest.mark.asyncio
async def test_rules_screen_revokes_and_saves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    app = TuiAgentApp(HostOptions(workspace=str(env.workspace)))
    async with app.run_test(size=(120, 40)) as pilot:
        await _booted(app)
        assert app.host is not None
        rules = app.host.policy.rules
        rules.add(AllowTool("read_file"))
        rules.add(AllowCommandPrefix(("ls", "-a")))
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, ApprovalRulesScreen)
        await pilot.press("s")  # the first rule, saved for every session
        await pilot.pause()
        config = tmp_path / "config" / "tui-agent" / "config.toml"
        async with asyncio.timeout(5):
            while not config.exists():
                await asyncio.sleep(0.02)
        saved = tomllib.loads(config.read_text())
        assert saved["approval"]["allowed_tools"] == ["read_file"]
        await pilot.press("d")
        await pilot.pause()
        assert rules.rules() == [AllowCommandPrefix(("ls", "-a"))]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ApprovalRulesScreen)
        await pilot.press("f3")
        await pilot.press("f3")  # plan, then auto-read (AUTO-ALL would ask first)
        assert str(app.host.policy.mode) == "auto-read"
