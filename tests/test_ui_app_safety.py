"""What the model sends reaches the terminal as inert text, in the real app over real sockets.

Model text, reasoning, a tool's name, its arguments and its output all carry OSC 52 (set the
clipboard), OSC 8 (a hidden link), OSC 0 (the window title), CSI 2J (clear the screen) and
Textual/Rich markup. The terminal output of a full repaint is inspected at each stage: no
escape byte from the model is in it, the markup is literal text, no rendered segment carries
an action, and clicking the would-be action does nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from tui_agent.ui.widgets.tool_result import ResultSummary

from .approval_prompt_app import screen_lines, screen_text, stray_controls, terminal_output
from .fake_provider import FakeProvider, Reply
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    cards,
    make_env,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
CLIPBOARD = "\x1b]52;c;SGVsbG8=\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\"
TITLE = "\x1b]0;pwned-title\x07"
CLEAR = "\x1b[2J\x1b[H"
C1 = "\x9b31m"  # the one-byte CSI
MARKUP = "[@click=app.quit]QUITNOW[/] [link=https://evil.example/]evil[/link] [b]bold?[/b]"
HOSTILE = f"{CLIPBOARD} {LINK} {TITLE} {CLEAR} {C1} {MARKUP}"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    return make_env(tmp_path, monkeypatch)


def _segments_meta(app: App[None]) -> list[dict[str, object]]:
    update = app.screen._compositor.render_full_update()
    return [
        dict(segment.style.meta)
        for row in update.strips
        for strip in row
        for segment in strip
        if segment.style is not None and segment.style.meta
    ]


def assert_inert(app: App[None]) -> None:
    output = terminal_output(app)
    assert stray_controls(output) == []
    assert "\x1b]" not in output  # no OSC at all: not 52, not 8, not 0
    assert "\x1b[2J" not in output and "\x9b" not in output
    for meta in _segments_meta(app):
        action = str(meta.get("@click", ""))
        assert "quit" not in action and "evil" not in action, meta
    assert "pwned-title" not in app.title


def _where(app: App[None], needle: str) -> tuple[int, int]:
    for y, line in enumerate(screen_lines(app)):
        x = line.find(needle)
        if x >= 0:
            return x, y
    raise AssertionError(f"{needle!r} is not on screen")


async def test_model_text_and_reasoning_are_inert(env: AppEnv) -> None:
    ops = [
        ("reasoning", f"thinking {HOSTILE}\n"),
        ("text", "# Answer\n\n"),
        ("text", f"Here: {CLIPBOARD[:3]}"),  # a sequence split across two deltas
        ("text", f"{CLIPBOARD[3:]} and {HOSTILE}\n\n`{CLEAR}` done.\n"),
    ]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops, stop="stop"))
        async with running(server, env) as (app, pilot):
            await send(pilot, f"echo this back: {HOSTILE}")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "done.")
            assert_inert(app)
            text = screen_text(app)
            assert "QUITNOW" in text and "[@click=app.quit]" in text
            assert "[link=https://evil.example/]evil[/link]" in text
            assert "[b]bold?[/b]" in text
            assert "]52;c;SGVsbG8=" in text  # shown, escaped, never sent
            assert "pwned-title" in text  # the would-be title is just text
            # Clicking where the action would be does nothing.
            x, y = _where(app, "QUITNOW")
            await pilot.click(offset=(x + 2, y))
            await pilot.pause()
            assert app.is_running
            assert app.clipboard == ""


async def test_tool_name_arguments_and_output_are_inert(env: AppEnv) -> None:
    command = "printf '\\033]52;c;SGVsbG8=\\007 [@click=app.quit]OUTQUIT[/] \\033[2J\\n'"
    ops = [
        ("call", 0, "call_X", f"evil{TITLE}[@click=app.quit]"),
        ("args", 0, "{}"),
        ("close", 0),
        ("call", 1, "call_R", "run_command"),
        ("args", 1, '{"command": ' + _json(command) + "}"),
        ("close", 1),
    ]
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(ops), answer(PROTOCOL, "Printed."))
        async with running(server, env) as (app, pilot):
            await send(pilot, "print it")
            await armed_prompt(pilot)
            assert_inert(app)  # the prompt shows the command with its escapes visible
            text = screen_text(app)
            assert "invalid:" in text and "[@click=app.quit]" in text
            await pilot.press("y")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Printed.")
            card = cards(app)[1]
            assert card.state == "done"
            await pilot.click(card.query_one(ResultSummary))
            await wait_for(pilot, lambda: card.model.expanded, "the output to open")
            await wait_text(pilot, "OUTQUIT")
            assert_inert(app)
            x, y = _where(app, "OUTQUIT")
            await pilot.click(offset=(x, y))
            await pilot.pause()
            assert app.is_running


def _json(text: str) -> str:
    import json

    return json.dumps(text)
