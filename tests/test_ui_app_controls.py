"""The app's own keys and commands: F3 approval mode (AUTO-ALL in warning style, and it really
approves), F2 the calls panel, Ctrl+Y copies the last answer, Ctrl+P lists the commands."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from textual.app import App
from textual.command import CommandList, CommandPalette
from textual.content import Content
from textual.pilot import Pilot

from tui_agent.ui.screens.confirm_auto_all import ConfirmAutoAll
from tui_agent.ui.widgets.side_panel import SidePanel
from tui_agent.ui.widgets.status_bar import StatusBar

from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .support.clock import leap_until
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    call_ops,
    cards,
    prompt_text,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
APP_COMMANDS = (
    "Approval mode: next",
    "Approval mode: ask",
    "Approval mode: plan",
    "Approval mode: auto-read",
    "Approval mode: auto-all",
    "Approval: what is auto-approved",
    "Calls panel",
    "Retry",
    "Copy last answer",
    "Sessions: browse",
    "Sessions: new",
    "Model: choose",
    "Profile: demo",
    "Theme",
)


def _plain(prompt: object) -> str:
    if isinstance(prompt, Content):
        return prompt.plain
    return str(getattr(prompt, "plain", prompt))


def _status_segments(app: App[None]) -> list[Segment]:
    """The rendered segments of the status bar's line."""
    bar = app.query_one(StatusBar)
    y = bar.region.y
    update = app.screen._compositor.render_full_update()
    return [segment for strip in update.strips[y] for segment in strip]


def _segment_with(app: App[None], text: str) -> Segment:
    for segment in _status_segments(app):
        if text in segment.text:
            return segment
    raise AssertionError(f"{text!r} is not in the status bar")


@pytest.mark.heavy
async def test_f3_cycles_the_mode_and_auto_all_is_shown_in_warning_style(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(("call_W", "write_file", {"path": "a.txt", "content": "auto\n"}))),
            answer(PROTOCOL, "Written.", expect=ExpectToolResults({"call_W": None})),
        )
        async with running(server, env) as (app, pilot):
            assert app.host is not None
            plain = _segment_with(app, "ask")
            assert "approval: ask" in screen_text(app)
            await pilot.press("f3")
            assert str(app.host.policy.mode) == "plan"
            await pilot.press("f3")
            assert str(app.host.policy.mode) == "auto-read"
            assert "approval: auto read-only" in screen_text(app)
            await pilot.press("f3")
            confirm = await _confirm_dialog(pilot)
            assert str(app.host.policy.mode) == "auto-read"  # not before the answer
            await leap_until(pilot, lambda: confirm.armed, "the dialog to arm")
            await pilot.press("y")
            assert str(app.host.policy.mode) == "auto-all"
            await wait_text(pilot, "approval: AUTO-ALL")
            loud = _segment_with(app, "AUTO-ALL")
            assert loud.style is not None and loud.style.reverse and loud.style.bold
            assert loud.style != plain.style

            # And it is real: the next call runs without a prompt.
            await send(pilot, "write a.txt")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Written.")
            assert not app.query("ApprovalPrompt")
            assert [card.state for card in cards(app)] == ["done"]

            await pilot.press("f3")
            assert str(app.host.policy.mode) == "ask"
            await wait_text(pilot, "approval: ask")
        assert (env.workspace / "a.txt").read_text() == "auto\n"
        (decision,) = [r for r in env.records() if r["type"] == "decision"]
        assert (decision["decision"], decision["by"]) == ("approve", "policy")


async def _confirm_dialog(pilot: Pilot[None]) -> ConfirmAutoAll:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmAutoAll), "the AUTO-ALL question")
    assert isinstance(app.screen, ConfirmAutoAll)
    assert "Switch to AUTO-ALL?" in screen_text(app)
    return app.screen


@pytest.mark.heavy
async def test_entering_auto_all_asks_and_typing_never_answers(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A longer arming delay than the real 0.4 s, so Pilot's pace between keys cannot pass for
    # a pause on a busy machine.
    monkeypatch.setattr(ConfirmAutoAll, "arming_delay", 3.0)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            assert app.host is not None
            await pilot.press("f3", "f3")  # plan, then auto-read: no question
            assert str(app.host.policy.mode) == "auto-read"
            # Typed on: the keys right after F3 (each within the arming delay of the one
            # before) decide nothing and type nothing.
            await pilot.press("f3", "y", "e", "y")
            confirm = await _confirm_dialog(pilot)
            await pilot.press("y")
            assert isinstance(app.screen, ConfirmAutoAll)
            assert str(app.host.policy.mode) == "auto-read"
            await wait_for(pilot, lambda: confirm.armed, "the dialog to arm")
            await pilot.press("n")
            await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmAutoAll), "close")
            assert str(app.host.policy.mode) == "auto-read"
            assert prompt_text(app) == ""
            # The palette's "Approval mode: auto-all" asks too; Esc keeps the mode.
            app.set_approval_mode("auto-all")
            await _confirm_dialog(pilot)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmAutoAll), "close")
            assert str(app.host.policy.mode) == "auto-read"
            assert "approval: auto read-only" in screen_text(app)


async def test_f2_toggles_the_calls_panel(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            panel = app.query_one(SidePanel)
            assert panel.display and "Tool calls" in screen_text(app)
            await pilot.press("f2")
            assert not panel.display
            await wait_for(pilot, lambda: "Tool calls" not in screen_text(app), "panel gone")
            await pilot.press("f2")
            assert panel.display
            await wait_text(pilot, "Tool calls")


async def test_ctrl_y_copies_the_last_answer_while_the_message_box_has_focus(
    env: AppEnv,
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(answer(PROTOCOL, "The **answer** is 42."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "what is it")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "is 42.")
            assert app.focused is not None and app.focused.id == "prompt"
            await pilot.press("ctrl+y")
            assert app.clipboard == "The **answer** is 42."


@pytest.mark.heavy
async def test_the_palette_lists_the_apps_commands_and_runs_them(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
            palette = app.screen
            results = palette.query_one(CommandList)
            # Empty, the palette lists every command it has (Textual's "discovery" list).
            await wait_for(
                pilot, lambda: results.option_count >= len(APP_COMMANDS), "the command list"
            )
            listed = [
                _plain(results.get_option_at_index(i).prompt) for i in range(results.option_count)
            ]
            for title in APP_COMMANDS:
                assert any(line.startswith(title) for line in listed), (title, listed)
            await pilot.press(*"Calls panel", "enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette), "closed")
            assert not app.query_one(SidePanel).display
