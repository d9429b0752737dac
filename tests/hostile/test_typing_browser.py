"""Validation and approval, part 5: typing never deletes, forks or switches a session.

The real app on the offline demo model, with saved sessions written by the real store. A person
types at 3 to 20 characters a second with jitter (keys posted as the terminal delivers them, no
wait for idle), text that holds d, y, n, f and Enter, and the session browser opens in the
middle of it (Ctrl+O as one of the keys). Whether the keys land in the search field (Enter
would resume the session the search found), in the table (d asks to delete, y would answer) or
in the fork picker (Enter would fork), nothing is deleted, forked or switched. Once the person
stops typing the same keys work, so the questions were really there.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import DataTable

from tui_agent.session import SessionStore
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.fork_picker import ForkPicker
from tui_agent.ui.screens.session_browser import Question, SessionBrowser
from tui_agent.ui.session_switch import current_session_id
from tui_agent.wiring.host_options import HostOptions

from ..sessions_cli_helpers import Cli
from .test_typing_approval import _gaps
from .test_typing_approval import _key as _char

KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
# Every key that decides in the browser, in words a person could type; the search for these
# words finds the session that holds them, so an Enter there would resume it.
WORDS = "yes do it and no fine "
PHRASE = WORDS + "\n"
PAUSE_S = 0.9  # a gap this long is a pause in typing (the app waits for about 1 s)


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    user = Cli(tmp_path, monkeypatch)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    for name in KEY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(user.workspace)
    return user


async def _wait(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    for _ in range(400):
        if condition():
            return
        await pilot.pause(0.025)
    raise AssertionError(f"timed out waiting for {what}")


async def _type(
    app: TuiAgentApp, keys: list[str], cps: float, seed: int, pressed: list[float] | None = None
) -> list[str]:
    """Press ``keys`` at ``cps`` with jitter; what the browser's question said meanwhile.
    ``pressed`` gets the real time of each key (a loaded machine may stretch a gap)."""
    said: list[str] = []
    for key, gap in zip(keys, _gaps(cps, len(keys), seed), strict=True):
        if pressed is not None:
            pressed.append(time.monotonic())
        _key(app, key)
        await asyncio.sleep(gap)
        waited = 0.0
        while key == "ctrl+o" and len(getattr(_browser(app), "shown", ())) < 3:
            await asyncio.sleep(0.005)  # the list is there before the next key (determinism)
            waited += 0.005
            if waited > 20.0:  # never hang the suite: fail, saying what did not come
                raise AssertionError(f"the browser did not list 3 sessions: {_browser(app)}")
        waited = 0.0
        while key == "down" and not isinstance(app.focused, DataTable):
            await asyncio.sleep(0.005)  # ↓ has reached the table before the next key (load)
            waited += 0.005
            if waited > 20.0:
                raise AssertionError(f"↓ did not reach the table: {app.focused}")
        browser = _browser(app)
        if browser is not None:
            said.append(str(browser.query_one(Question).render()))
    return said


def _key(app: TuiAgentApp, key: str) -> None:
    """A key as the terminal delivers it (Ctrl+O and ↓ with their real characters)."""
    if key in ("ctrl+o", "down"):
        event = events.Key(key, "\x0f" if key == "ctrl+o" else None)
        event.set_sender(app)
        app.post_message(event)
    else:
        _char(app, key)


def _browser(app: TuiAgentApp) -> SessionBrowser | None:
    return next((s for s in app.screen_stack if isinstance(s, SessionBrowser)), None)


def _sessions() -> set[str]:
    return {summary.id for summary in SessionStore().list()}


@pytest.mark.parametrize(
    ("where", "cps", "seed"),
    [
        ("search", 3, 1),
        ("search", 8, 2),
        ("search", 20, 3),
        ("table", 3, 4),
        ("table", 5, 5),
        ("table", 13, 6),
        ("fork", 3, 7),
        ("fork", 8, 8),
        ("fork", 20, 9),
    ],
)
async def test_typing_while_the_browser_opens_never_deletes_forks_or_switches(
    cli: Cli, where: str, cps: float, seed: int
) -> None:
    cli.session("another question")
    target = cli.session(WORDS)  # what the typed search finds; second in the list
    before = _sessions()
    options = HostOptions(workspace=str(cli.workspace))  # named: the sessions' own workspace
    async with TuiAgentApp(options).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        assert isinstance(app, TuiAgentApp)
        await _wait(pilot, lambda: app.host is not None, "the app to boot")
        opened = current_session_id(app)
        # Typing in the message box, Ctrl+O, and typing on: into the search field, or after ↓ ↓
        # into the table on the target's row, or after ↓ ↓ f into the fork picker.
        lead = {"search": [], "table": ["down", "down"], "fork": ["down", "down", "f"]}[where]
        words = list(PHRASE) * max(2, round(3.0 * cps / len(PHRASE)))
        keys = [*"hello ", "ctrl+o", *lead, *words]
        pressed: list[float] = []
        said = await _type(app, keys, cps, seed, pressed)
        await asyncio.sleep(0.1)
        # Every gap from Ctrl+O on counts: the lead keys' too (the wait for ↓ to reach the table
        # on a loaded machine can be a pause, after which the picker rightly arms at once).
        typed = pressed[keys.index("ctrl+o") :]
        longest = max(b - a for a, b in itertools.pairwise(typed))
        if longest >= PAUSE_S:
            # The machine stalled this test's own typing: a real pause, after which a key may
            # rightly decide. That run says nothing about continuous typing.
            pytest.skip(f"the typing itself paused {longest:.2f} s (a loaded machine)")
        assert current_session_id(app) == opened, "switched"
        assert cli.store.resolve(target).exists(), "deleted"
        assert not _sessions() - before - {opened}, "forked"
        browser = _browser(app)
        assert browser is not None, "closed"
        if where == "table":
            assert browser.ask is not None and browser.ask.session_id == target
            assert any("waiting for a pause in typing" in line for line in said), said
            # Once the person stops, the same question takes y: it was really there.
            await _wait(pilot, browser.guard.armed, "the question to arm")
            await pilot.press("y")
            await _wait(pilot, lambda: target not in _sessions(), "the delete")
        elif where == "fork":
            picker = app.screen
            assert isinstance(picker, ForkPicker)
            await _wait(pilot, picker.guard.armed, "the picker to arm")
            await pilot.press("enter")
            await _wait(pilot, lambda: len(_sessions() - before - {opened}) == 1, "the fork")
        else:
            assert browser.highlighted() == target  # Enter would have resumed it
            await _wait(pilot, browser.guard.armed, "the browser to arm")
            await pilot.press("enter")
            await _wait(pilot, lambda: current_session_id(app) == target, "the switch")
