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

import math

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import DataTable

from tui_agent.session import SessionStore
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.arming import ARMING_S
from tui_agent.ui.arming import PAUSE_S as TYPING_PAUSE_S
from tui_agent.ui.screens.fork_picker import ForkPicker
from tui_agent.ui.screens.session_browser import Question, SessionBrowser
from tui_agent.ui.session_switch import current_session_id
from tui_agent.wiring.host_options import HostOptions

from ..sessions_cli_helpers import Cli
from ..support.clock import ManualClock
from ..support.waiting import wait_for
from .test_typing_approval import _gaps
from .test_typing_approval import _key as _char

# Every key that decides in the browser, in words a person could type; the search for these
# words finds the session that holds them, so an Enter there would resume it.
WORDS = "yes do it and no fine "
PHRASE = WORDS + "\n"


async def _type(pilot: Pilot[None], keys: list[str], cps: float, seed: int) -> list[str]:
    """Press ``keys`` at ``cps`` with jitter, on the app's clock (the test's: time passes only
    between keys, by the gap); what the browser's question said meanwhile."""
    app = pilot.app
    assert isinstance(app, TuiAgentApp)
    said: list[str] = []
    for index, (key, gap) in enumerate(zip(keys, _gaps(cps, len(keys), seed), strict=True)):
        _key(app, key)
        await pilot.pause()
        if key == "ctrl+o":  # the list is there before the next key (real time, not the app's)
            await wait_for(pilot, lambda: len(getattr(_browser(app), "shown", ())) >= 3, "3 rows")
        if key == "down":
            await wait_for(pilot, lambda: isinstance(app.focused, DataTable), "↓ in the table")
        browser = _browser(app)
        if browser is not None:
            said.append(str(browser.query_one(Question).render()))
        if index < len(keys) - 1:
            _clock(app).advance(gap)
            await pilot.pause()
    return said


def _clock(app: TuiAgentApp) -> ManualClock:
    clock = app.clock
    assert isinstance(clock, ManualClock)
    return clock


async def _pause(pilot: Pilot[None]) -> None:
    """The person stops typing: the pause, then the arming delay, pass on the app's clock."""
    assert isinstance(pilot.app, TuiAgentApp)
    _clock(pilot.app).advance(TYPING_PAUSE_S + ARMING_S + 0.1)
    await pilot.pause()


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
    async with TuiAgentApp(options, clock=ManualClock()).run_test(size=(140, 40)) as pilot:
        app = pilot.app
        assert isinstance(app, TuiAgentApp)
        await wait_for(pilot, lambda: app.host is not None, "the app to boot")
        opened = current_session_id(app)
        # Typing in the message box, Ctrl+O, and typing on: into the search field, or after ↓ ↓
        # into the table on the target's row, or after ↓ ↓ f into the fork picker.
        lead = {"search": [], "table": ["down", "down"], "fork": ["down", "down", "f"]}[where]
        # At least 3 s of typing once the browser is open, at any speed (each key costs real
        # time under Pilot: the slow typists' 15 s of it proved no more than 3 s).
        words = list(PHRASE) * math.ceil(3.0 * cps / len(PHRASE))
        keys = [*"hello ", "ctrl+o", *lead, *words]
        said = await _type(pilot, keys, cps, seed)
        _clock(app).advance(0.1)
        await pilot.pause()
        assert current_session_id(app) == opened, "switched"
        assert cli.store.resolve(target).exists(), "deleted"
        assert not _sessions() - before - {opened}, "forked"
        browser = _browser(app)
        assert browser is not None, "closed"
        if where == "table":
            assert browser.ask is not None and browser.ask.session_id == target
            assert any("waiting for a pause in typing" in line for line in said), said
            # Once the person stops, the same question takes y: it was really there.
            assert not browser.guard.armed()
            await _pause(pilot)
            assert browser.guard.armed()
            await pilot.press("y")
            await wait_for(pilot, lambda: target not in _sessions(), "the delete")
        elif where == "fork":
            picker = app.screen
            assert isinstance(picker, ForkPicker)
            assert not picker.guard.armed()
            await _pause(pilot)
            assert picker.guard.armed()
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(_sessions() - before - {opened}) == 1, "the fork")
        else:
            assert browser.highlighted() == target  # Enter would have resumed it
            assert not browser.guard.armed()
            await _pause(pilot)
            assert browser.guard.armed()
            await pilot.press("enter")
            await wait_for(pilot, lambda: current_session_id(app) == target, "the switch")
