"""Notify when a person is needed, in the real app: with the terminal's focus gone (a focus-out
report), an approval that starts waiting and a loop that ends ring the bell and send OSC 9 (OSC
777 on a VTE terminal; inside tmux, wrapped in its DCS passthrough), whose text names the tool
and never an argument value; focused, or with notify = "off", nothing is sent; "bell" rings
only. The bytes are the ones the app wrote to its terminal (tests/hostile/terminal.py)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.notify import BEL, attention_bytes, clean

from .fake_provider import FakeProvider, Hold, Reply
from .hostile.terminal import output, record
from .ui_app_helpers import (
    KEY,
    SIZE,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    make_app,
    make_env,
    send,
    wait_for,
    wait_idle_agent,
)

PROTOCOL = "openai-chat"
SECRET = "do-not-show-this-value-71"
OSC = re.compile(r"\x1b\]([0-9]+);(.*?)\x07")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    for name in ("TMUX", "VTE_VERSION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    return make_env(tmp_path, monkeypatch)


def configure(env: AppEnv, notify: str) -> None:
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(f'[settings]\nnotify = "{notify}"\n')


@contextlib.asynccontextmanager
async def recorded(
    server: FakeProvider, env: AppEnv
) -> AsyncIterator[tuple[TuiAgentApp, Pilot[None]]]:
    app = make_app(server, env)
    record(app)
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        yield app, pilot
        await pilot.press("ctrl+q")


async def blur(pilot: Pilot[None]) -> None:
    """The terminal reports that its window lost focus (ESC [ O)."""
    pilot.app.post_message(events.AppBlur())
    await wait_for(pilot, lambda: not pilot.app.app_focus, "the focus-out")


def notifications(app: TuiAgentApp) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in OSC.finditer(output(app)) if m.group(1) != "22"]


async def approval_while_away(env: AppEnv, rings: bool = True) -> tuple[str, list[tuple[str, str]]]:
    """Send, lose focus, let the turn end in a write_file call; what was written, and the OSCs.
    The bell and the notification are one write, right after the prompt is mounted; when
    nothing ``rings``, the prompt's arming (0.4 s after its mount, at the earliest) is later."""
    arguments = {"path": "a.txt", "content": SECRET}
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(("call_W", "write_file", arguments)), faults=Hold(0)))
        async with recorded(server, env) as (app, pilot):
            await send(pilot, "write it")
            await blur(pilot)
            before = output(app)
            server.release()
            if rings:
                await wait_for(pilot, lambda: BEL in output(app)[len(before) :], "the bell")
            else:
                await armed_prompt(pilot)
            written = output(app)[len(before) :]
            return written, notifications(app)


async def test_an_approval_while_the_terminal_is_away_rings_and_notifies(env: AppEnv) -> None:
    written, osc = await approval_while_away(env)
    assert "\x07" in OSC.sub("", written)  # the bell itself, besides the OSCs' terminators
    assert osc == [("9", "tui-agent: approval needed: write_file")]
    assert SECRET not in "".join(body for _, body in osc)


@pytest.mark.heavy
async def test_vte_gets_osc_777_and_tmux_the_passthrough(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VTE_VERSION", "7600")
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,1,0")
    written, _ = await approval_while_away(env)
    inner = "\x1b\x1b]777;notify;tui-agent;approval needed: write_file\x07"
    assert f"\x1bPtmux;{inner}\x1b\\" in written
    assert "\x07" in OSC.sub("", written.replace(inner, ""))  # and the bell, outside it


async def test_a_finished_turn_notifies_and_focus_or_off_sends_nothing(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(answer(PROTOCOL, "Done.").ops, stop="stop", faults=Hold(0)),
            answer(PROTOCOL, "Again."),
        )
        async with recorded(server, env) as (app, pilot):
            await send(pilot, "hello")
            await blur(pilot)
            server.release()
            await wait_idle_agent(pilot)
            done = [("9", "tui-agent: done, waiting for you")]
            await wait_for(pilot, lambda: notifications(app) == done, "the notification")
            await send(pilot, "again")  # a key: the terminal has focus again
            await wait_idle_agent(pilot)  # the turn's end is told in the same step as idle
            assert len(notifications(app)) == 1


async def test_notify_off_sends_nothing_and_bell_only_rings(env: AppEnv) -> None:
    configure(env, "off")
    _, osc = await approval_while_away(env, rings=False)
    assert osc == []
    assert attention_bytes("x", "off") == ""
    assert attention_bytes("x", "bell") == "\x07"


def test_the_text_cannot_end_the_sequence() -> None:
    hostile = "run\x07\x1b]9;pwned\x1b\\;\u202e\u200b" + "x" * 200
    text = clean(hostile)
    assert all(" " <= char <= "~" for char in text) and ";" not in text
    assert len(text) <= 80
    data = attention_bytes(hostile, "desktop", {"TERM": "xterm"})
    assert data.count("\x07") == 2 and data.count("\x1b") == 1


async def test_a_notification_hook_runs_when_the_person_is_needed(env: AppEnv) -> None:
    import json
    import sys

    mark = env.workspace / "notified.json"
    hook = env.root / "notify_hook.py"
    hook.write_text(
        f"import json, sys\njson.dump(json.load(sys.stdin), open({str(mark)!r}, 'w'))\n"
    )
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    command = json.dumps([sys.executable, str(hook)])
    (folder / "config.toml").write_text(
        f'[settings]\nnotify = "off"\n\n[[hooks]]\nevent = "Notification"\ncommand = {command}\n'
    )
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(answer(PROTOCOL, "Done.").ops, stop="stop", faults=Hold(0)))
        async with recorded(server, env) as (app, pilot):
            await send(pilot, "hello")
            await blur(pilot)
            server.release()
            await wait_idle_agent(pilot)
            written = lambda: mark.exists() and mark.read_text().endswith("}")  # noqa: E731
            await wait_for(pilot, written, "the Notification hook")
            assert notifications(app) == []  # notify = "off": the hook is the notifier
    told = json.loads(mark.read_text())
    assert (told["hook_event_name"], told["message"]) == ("Notification", "done, waiting for you")
