"""Slash commands in the message box (Pilot, the real app against the fake provider): ``/``
lists every command with its description, arguments complete (themes, modes, profiles), an
unknown command is refused and never sent, a prompt template is sent with ``$ARGUMENTS``
expanded, and the workspace's templates only once the workspace trusted them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tui_agent.ui.actions import Action, add_action
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.template_trust import TemplateTrustScreen
from tui_agent.ui.widgets.completion_list import CompletionList
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.workspace_trust import WorkspaceTrustScreen

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider
from .support.clock import leap_until
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    make_env,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    env = make_env(tmp_path, monkeypatch)
    folder = tmp_path / "config" / "tui-agent"
    (folder / "commands").mkdir(parents=True)
    (folder / "config.toml").write_text(
        '[profiles.fast]\nprotocol = "openai-chat"\nmodel = "m-fast"\n'
        '[profiles.deep]\nprotocol = "anthropic"\nmodel = "m-deep"\n'
    )
    (folder / "commands" / "review.md").write_text(
        "---\ndescription: review a file with care\n---\nReview $ARGUMENTS line by line.\n"
    )
    return env


def _toasts(app: TuiAgentApp) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


def _list(app: TuiAgentApp) -> CompletionList:
    return app.query_one(CompletionList)


def _labels(app: TuiAgentApp) -> list[str]:
    return [entry.label for entry in _list(app).entries]


async def _decline_workspace_question(pilot: Pilot[None]) -> None:
    """The app opens on the workspace's one trust question: not now (n)."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, WorkspaceTrustScreen), "the question")
    screen = app.screen
    assert isinstance(screen, WorkspaceTrustScreen)
    await leap_until(pilot, screen.guard.armed, "the arming")
    await pilot.press("n")
    await wait_for(pilot, lambda: app.screen is not screen, "n")


async def _type(pilot: Pilot[None], text: str) -> None:
    prompt = pilot.app.query_one(PromptInput)
    prompt.focus()
    for char in text:
        await pilot.press("space" if char == " " else char)
    await pilot.pause()


@pytest.mark.heavy
async def test_slash_lists_every_command_with_a_description(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            await _type(pilot, "/")
            await wait_for(pilot, lambda: _list(app).open, "the completion list")
            names = {label.split()[0] for label in _labels(app)}
            for name in (
                "/model",
                "/profile",
                "/mode",
                "/compact",
                "/rewind",
                "/fork",
                "/sessions",
                "/export",
                "/theme",
                "/new",
                "/help",
                "/quit",
                "/retry",
                "/calls",
                "/rules",
                "/review",  # a template of the config folder
                "/keys",
                "/screenshot",  # palette entries with no built-in: named from titles
            ):
                assert name in names, name
            assert all(entry.description for entry in _list(app).entries)
            review = next(e for e in _list(app).entries if e.label.startswith("/review"))
            assert review.description == "review a file with care (config template)"
            await wait_text(pilot, "/compact [TEXT]  summarize the older conversation")
            # Palette entries read like the built-ins: a phrase, not a sentence.
            shot = next(e for e in _list(app).entries if e.label.startswith("/screenshot"))
            assert shot.description.startswith("save an SVG"), shot.description
            # Typing narrows it; Esc closes it and the text stays.
            await _type(pilot, "se")
            assert _labels(app) == ["/sessions"]
            await pilot.press("escape")
            assert not _list(app).open and prompt_text(app) == "/se"
            # Enter on a complete command runs it instead of completing it again.
            app.query_one(PromptInput).clear()
            await _type(pilot, "/calls")
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.query_one("#calls").display, "calls hidden")
        assert server.requests == []


@pytest.mark.heavy
async def test_arguments_complete(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            await _type(pilot, "/mo")
            assert _labels(app)[:2] == ["/mode [MODE]", "/model [MODEL]"]
            await pilot.press("down", "up", "tab")
            assert prompt_text(app) == "/mode "
            await wait_for(pilot, lambda: _list(app).open, "the modes")
            assert [m for m in _labels(app) if m != "plan"] == ["ask", "auto-read", "auto-all"]
            await _type(pilot, "auto-")
            assert _labels(app) == ["auto-read", "auto-all"]
            await pilot.press("tab")
            assert prompt_text(app) == "/mode auto-read"
            await pilot.press("enter")  # complete already: sent
            await wait_for(
                pilot, lambda: app.host and str(app.host.policy.mode) == "auto-read", "the mode"
            )
            await _type(pilot, "/profile ")
            assert [label for label in _labels(app)] == ["fast", "deep", "demo"]
            app.query_one(PromptInput).clear()
            await _type(pilot, "/theme l")
            assert "light" in _labels(app)
            await pilot.press("tab", "enter")
            await wait_for(pilot, lambda: app.theme == "light", "the light theme")
        assert server.requests == []


@pytest.mark.heavy
async def test_unknown_command_is_refused_and_not_sent(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            await send(pilot, "/frobnicate now")
            await wait_for(pilot, lambda: "unknown command '/frobnicate'" in _toasts(app), "notice")
            assert prompt_text(app) == "/frobnicate now"
            assert server.requests == []


async def test_an_added_command_runs(env: AppEnv) -> None:
    """actions.add_action: the one call that adds a command from elsewhere, to this app only."""
    seen: list[str] = []
    added = Action("plan-test", "a command added from elsewhere", lambda app, a: seen.append(a))
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            add_action(app, added)
            await send(pilot, "/plan-test carefully")
            await wait_for(pilot, lambda: seen == ["carefully"], "the command")
        assert server.requests == []


@pytest.mark.heavy
async def test_template_sent_with_arguments_and_workspace_ones_after_trust(env: AppEnv) -> None:
    folder = env.workspace / ".tui-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "ship.md").write_text("Prepare the release notes for $ARGUMENTS.\n")
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "Reviewed."), answer(PROTOCOL, "Notes."))
        async with running(server, env) as (app, pilot):
            await _decline_workspace_question(pilot)
            await send(pilot, "/review src/main.py")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Reviewed.")
            assert "Review src/main.py line by line." in server.requests[0].body.decode()
            # The workspace's template: not offered, refused, until trusted.
            await _type(pilot, "/sh")
            assert "/ship" not in " ".join(_labels(app))
            app.query_one(PromptInput).clear()
            await send(pilot, "/ship 2.0")
            await wait_for(pilot, lambda: "not trusted yet" in _toasts(app), "the notice")
            assert len(server.requests) == 1
            app.query_one(PromptInput).clear()
            await send(pilot, "/trust-templates")
            await wait_for(pilot, lambda: isinstance(app.screen, TemplateTrustScreen), "trust")
            assert "Prepare the release notes" in screen_text(app)
            screen = app.screen
            assert isinstance(screen, TemplateTrustScreen)
            await leap_until(pilot, screen.guard.armed, "the arming")
            await pilot.press("t")
            await wait_for(pilot, lambda: not isinstance(app.screen, TemplateTrustScreen), "t")
            await send(pilot, "/ship 2.0")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Notes.")
            assert "Prepare the release notes for 2.0." in server.requests[1].body.decode()
        server.assert_all_consumed()
    # An edited template is not trusted any more.
    (folder / "ship.md").write_text("Something else: $ARGUMENTS\n")
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            await _decline_workspace_question(pilot)  # the edited template: asked again
            await send(pilot, "/ship 3.0")
            await wait_for(pilot, lambda: "not trusted yet" in _toasts(app), "the notice")
        assert server.requests == []


def test_the_mode_command_names_every_mode() -> None:
    """/help's line for /mode lists every mode F3 cycles through (plan was left out)."""
    from tui_agent.ui.actions import BY_NAME
    from tui_agent.ui.approval_mode import MODES

    mode = BY_NAME["mode"]
    assert all(name in mode.help for name in MODES), mode.help
