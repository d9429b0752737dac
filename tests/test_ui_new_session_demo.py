"""/new on the built-in demo profile (the real app under Pilot, the real demo server): a new,
empty session opens, with no "the demo profile takes no --model" error (it used to pass the
demo's own model back as an override)."""

from __future__ import annotations

import pytest

from tui_agent.ui.app import TuiAgentApp
from tui_agent.wiring.host_options import HostOptions

from .approval_prompt_app import screen_text
from .ui_app_helpers import SIZE, AppEnv, send, wait_for, wait_idle_agent


@pytest.fixture(autouse=True)
def instant_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo answers at once: /new is tested here, not the demo's human pace (4 s)."""
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")


async def test_new_opens_a_new_demo_session(env: AppEnv) -> None:
    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(env.workspace)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        await send(pilot, "hello")
        await wait_idle_agent(pilot)
        old = app.host
        assert old is not None and old.profile.name == "demo"
        await send(pilot, "/new")
        await wait_for(pilot, lambda: app.host is not old, "the new session")
        assert app.host is not None and app.host.profile.name == "demo"
        assert app.host.writer.session_id != old.writer.session_id
        toasts = "\n".join(str(n.message) for n in app._notifications)
        assert "takes no" not in toasts + screen_text(app)
        await pilot.press("ctrl+q")


async def test_the_palette_starts_a_new_session_too(env: AppEnv) -> None:
    from textual.command import CommandList, CommandPalette

    app = TuiAgentApp(HostOptions(profile="demo", workspace=str(env.workspace)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        await send(pilot, "hello")
        await wait_idle_agent(pilot)
        old = app.host
        assert old is not None
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"Sessions: new")
        results = app.screen.query_one(CommandList)

        def first_is_new() -> bool:
            if results.option_count == 0 or results.highlighted is None:
                return False
            prompt = results.get_option_at_index(results.highlighted).prompt
            return "Sessions: new" in getattr(prompt, "plain", str(prompt))

        await wait_for(pilot, first_is_new, "the entry highlighted")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.host is not old, "the new session")
        assert app.host is not None and app.host.profile.name == "demo"
        assert app.host.writer.session_id != old.writer.session_id
        await pilot.press("ctrl+q")
