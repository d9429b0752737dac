"""Memory: a typed ``# ...`` message opens a dialog with the diff, saves the line to the chosen
AGENTS.md (Esc loses nothing), and the next request's system prompt holds it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.arming import ARMING_S
from tui_agent.ui.arming import PAUSE_S as TYPING_PAUSE_S
from tui_agent.ui.screens.memory_dialog import MemoryDialog
from tui_agent.wiring.memory import memory_line
from tui_agent.wiring.workspace_content import read_workspace_content

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider
from .support.clock import ManualClock, leap_until
from .support.waiting import wait_for
from .ui_app_helpers import answer, make_env, prompt_text, running, send, wait_idle_agent

LINE = "# always use pytest -q"


async def dialog(pilot: Pilot[None]) -> MemoryDialog:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, MemoryDialog), "the memory dialog")
    screen = app.screen
    assert isinstance(screen, MemoryDialog)
    clock = app.clock if isinstance(app, TuiAgentApp) else None
    if isinstance(clock, ManualClock) and not screen.guard.armed():
        clock.advance(TYPING_PAUSE_S + ARMING_S + 0.1)
        await pilot.pause()
    await leap_until(pilot, screen.guard.armed, "the dialog to arm")
    return screen


def system_of(server: FakeProvider, index: int) -> str:
    body = server.requests[index].json
    return str(body.get("system") or body["messages"][0]["content"])


def test_only_hash_space_is_a_memory() -> None:
    assert memory_line(LINE) == "always use pytest -q"
    assert memory_line("#123 fix it") is None
    assert memory_line(" # sent as is") is None
    assert memory_line("#   ") is None


@pytest.mark.asyncio
@pytest.mark.parametrize("target", ["workspace", "user"])
@pytest.mark.heavy
async def test_hash_message_saved_after_the_diff_and_sent_next_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-chat", api_key="fake-key-value", require_tools=False) as server:
        server.script(answer("openai-chat"))
        async with running(server, env) as (app, pilot):
            await send(pilot, LINE)
            await dialog(pilot)
            if target == "user":
                await pilot.press("tab")
            shown = screen_text(app)
            assert "+- always use pytest -q" in shown
            await pilot.press("enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, MemoryDialog), "saved")
            assert server.requests == []  # never sent to the model
            where = (
                env.workspace / "AGENTS.md"
                if target == "workspace"
                else tmp_path / "config" / "tui-agent" / "AGENTS.md"
            )
            assert where.read_text() == "- always use pytest -q\n"
            await send(pilot, "hello")
            await wait_idle_agent(pilot)
            assert "always use pytest -q" in system_of(server, 0)
    if target == "workspace":  # the app wrote the person's line: it stays trusted
        assert read_workspace_content(env.workspace).trusted("instructions")


@pytest.mark.asyncio
async def test_esc_cancels_and_the_text_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-chat", api_key="fake-key-value", require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            await send(pilot, LINE)
            await dialog(pilot)
            await pilot.press("escape")
            await wait_for(pilot, lambda: prompt_text(app) == LINE, "the text back in the box")
            assert not (env.workspace / "AGENTS.md").exists()
            assert server.requests == []


@pytest.mark.asyncio
async def test_a_trusted_agents_file_stays_trusted_and_an_untrusted_one_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    (env.workspace / "AGENTS.md").write_text("# Rules\nbe brief\n")
    with FakeProvider("openai-chat", api_key="fake-key-value", require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            while app.screen is not app.screen_stack[0]:  # the trust question: not now
                await pilot.press("n")
                await pilot.pause()
            await send(pilot, LINE)
            await dialog(pilot)
            await pilot.press("enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, MemoryDialog), "saved")
            text = (env.workspace / "AGENTS.md").read_text()
            assert text == "# Rules\nbe brief\n- always use pytest -q\n"
    assert not read_workspace_content(env.workspace).trusted("instructions")


@pytest.mark.asyncio
async def test_slash_memory_opens_both_files_in_the_editor_and_sends_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys\n"
        "for n, path in enumerate(sys.argv[1:]):\n"
        "    open(path, 'a').write(f'- edited file {n}\\n')\n"
    )
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"python3 {script}")
    with FakeProvider("openai-chat", api_key="fake-key-value", require_tools=False) as server:
        server.script(answer("openai-chat"))
        async with running(server, env) as (_app, pilot):
            await send(pilot, "/memory")
            mine = tmp_path / "config" / "tui-agent" / "AGENTS.md"
            await wait_for(pilot, mine.exists, "the editor to write")
            assert (env.workspace / "AGENTS.md").read_text() == "- edited file 0\n"
            await send(pilot, "hello")
            await wait_idle_agent(pilot)
            system = system_of(server, 0)
            assert "- edited file 1" in system  # the person's own file is always sent
            assert "- edited file 0" in system  # the person created it: trusted
