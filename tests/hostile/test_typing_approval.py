"""Validation and approval, part 4: a person typing never decides a call, and loses no key.

The real app over real sockets, driven by keys posted the way the terminal delivers them (no
wait for idle between keys): a person types a message while the model works, at 3 to 20
characters a second with jitter, text that holds every choice key (y t n A e r p), across the
moment the approval prompt appears. Nothing is decided, no rule is kept, every key lands in the
message box; the prompt takes focus only after a pause, Tab reaches it at once, and its arming
starts over on every key, also in the inputs it opens (reason, prefix, edit) and when focus
comes back from the session browser.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from textual import events
from textual.app import App

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.arming import ARMING_S
from tui_agent.ui.screens.session_browser import SessionBrowser
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.prompt_input import PromptInput

from ..approval_prompt_app import screen_text
from ..fake_provider import FakeProvider, Reply, StallBeforeTerminal
from ..ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    call_ops,
    cards,
    prompt_text,
    running,
    wait_for,
    wait_idle_agent,
    wait_prompt,
)

PROTOCOL = "openai-chat"
# Every choice key of the prompt, in words a person could type (letters and spaces only).
PHRASE = "Any tent type repo "
CALL = ("call_R", "run_command", {"command": "touch out.txt"})
PREFIXABLE = ("call_R", "run_command", {"command": "ls -la"})
WAITING = "keep typing — press Tab to answer, or pause 1 s"


_NAMED = {" ": ("space", " "), "\n": ("enter", "\r"), "tab": ("tab", "\t")}
_NAMED |= {"escape": ("escape", "\x1b"), "ctrl+s": ("ctrl+s", "\x13")}


def _key(app: App[None], char: str) -> None:
    """One key (a character, or a name in _NAMED) as the terminal delivers it, without Pilot's
    wait for idle after it."""
    name, character = _NAMED.get(char, (char, char))
    event = events.Key(name, character)
    event.set_sender(app)
    app.post_message(event)


def _gaps(cps: float, count: int, seed: int) -> list[float]:
    """Seconds between keys: a mean of 1/cps, each between half and one and a half of it."""
    rng = random.Random(seed)
    return [rng.uniform(0.5, 1.5) / cps for _ in range(count)]


async def _type(app: TuiAgentApp, text: str, cps: float, seed: int, at: int = -1) -> list[str]:
    """Type ``text``; release the stalled reply after key ``at``. What was seen meanwhile."""
    seen: list[str] = []
    server = getattr(app, "_test_server", None)
    for index, (char, gap) in enumerate(zip(text, _gaps(cps, len(text), seed), strict=True)):
        _key(app, char)
        if index == at and server is not None:
            server.release()
        prompts = app.query(ApprovalPrompt)
        if prompts:
            prompt = prompts.first()
            assert prompt.decision is None, (cps, seed, index, prompt.decision)
            seen.append("focused" if app.focused is prompt else "waiting")
            if getattr(prompt, "waiting", False) and WAITING in screen_text(app):
                seen.append("said so")
        await asyncio.sleep(gap)
    return seen


def _assert_nothing_decided(app: TuiAgentApp, env: AppEnv) -> None:
    prompt = app.query_one(ApprovalPrompt)
    assert prompt.decision is None
    assert cards(app)[0].state == "waiting"
    assert app.host is not None and app.host.policy.rules.rules() == []
    assert not [r for r in env.records() if r["type"] == "decision"]
    assert not (env.workspace / "out.txt").exists()


async def _start(app: TuiAgentApp, server: FakeProvider, message: str = "run it") -> None:
    """Send ``message`` (Enter's own action) and wait for the stalled reply."""
    app._test_server = server  # type: ignore[attr-defined]
    box = app.query_one(PromptInput)
    box.insert(message)
    box.submit()
    assert await server.wait_stalled_async(10.0)


async def _deny_after_a_pause(app: TuiAgentApp, env: AppEnv) -> None:
    """The person stops typing: the prompt takes focus and arms; n denies."""
    pilot_app = app
    prompt = app.query_one(ApprovalPrompt)
    for _ in range(400):
        if prompt.armed:
            break
        await asyncio.sleep(0.02)
    assert prompt.armed and pilot_app.focused is prompt
    _key(app, "n")
    for _ in range(400):
        if prompt.decision is not None:
            break
        await asyncio.sleep(0.02)
    assert prompt.decision is not None and prompt.decision.kind == "deny"


@pytest.mark.parametrize(("cps", "seed"), [(3, 1), (5, 2), (8, 3), (8, 4), (13, 5), (20, 6)])
async def test_typing_across_the_moment_the_prompt_appears_never_decides(
    env: AppEnv, cps: float, seed: int
) -> None:
    # At least ~2.4 s of typing, about half of it once the prompt is there.
    text = PHRASE * max(1, round(2.4 * cps / len(PHRASE)))
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env) as (app, pilot):
            await _start(app, server)
            seen = await _type(app, text, cps, seed, at=min(3, len(text) // 4))
            await wait_for(pilot, lambda: prompt_text(app) == text, "every key in the box")
            _assert_nothing_decided(app, env)
            assert "waiting" in seen and "said so" in seen, seen
            assert "focused" not in seen, seen  # never took focus while the person typed
            await _deny_after_a_pause(app, env)
            await wait_idle_agent(pilot)
            assert prompt_text(app) == text  # the message is still there to send
        assert not (env.workspace / "out.txt").exists()
        server.assert_all_consumed()


async def test_a_pause_mid_typing_then_more_typing_loses_and_decides_nothing(env: AppEnv) -> None:
    """The prompt took focus in a pause; the next keys go back to the box with focus."""
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env) as (app, pilot):
            await _start(app, server)
            await _type(app, "type ", 8, 7, at=1)
            prompt = await wait_prompt(pilot)
            # Watch for the focus closely (no wait for idle): typing must start again within the
            # arming delay after it, and a watch that itself stalled that long says nothing.
            looked = time.monotonic()
            for _ in range(10_000):
                if app.focused is prompt:
                    break
                looked = time.monotonic()
                await asyncio.sleep(0.002)
            assert app.focused is prompt, "focus after the pause"
            if prompt.armed and time.monotonic() - looked >= ARMING_S / 2:
                pytest.skip("the machine stalled this test past the arming delay after the focus")
            assert not prompt.armed
            await _type(app, PHRASE * 2, 12, 8)  # typing again, within the arming delay
            expected = "type " + PHRASE * 2
            await wait_for(pilot, lambda: prompt_text(app) == expected, "every key in the box")
            _assert_nothing_decided(app, env)
            await _deny_after_a_pause(app, env)
            await wait_idle_agent(pilot)
        server.assert_all_consumed()


async def test_typing_at_an_armed_prompt_that_took_focus_goes_to_the_box(env: AppEnv) -> None:
    """A prompt that took focus in a pause and armed; the person starts a message with a key
    that is not a choice ("/new", "hello", as a tmux run showed: "/" was swallowed and the "n"
    of "new" denied the call). The first key and the rest go to the box; nothing is decided."""
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env) as (app, pilot):
            await _start(app, server)
            server.release()
            prompt = await wait_prompt(pilot)
            for _ in range(400):
                if prompt.armed and app.focused is prompt:
                    break
                await asyncio.sleep(0.02)
            assert prompt.armed and app.focused is prompt
            for char in "/new then more":  # as fast as a paste or tmux sends them
                _key(app, char)
            await wait_for(pilot, lambda: prompt_text(app) == "/new then more", "the keys")
            _assert_nothing_decided(app, env)  # (it may have taken focus again in a pause since)
            await _deny_after_a_pause(app, env)
            await wait_idle_agent(pilot)
        server.assert_all_consumed()


async def test_tab_reaches_the_waiting_prompt_and_its_arming_restarts_on_every_key(
    env: AppEnv,
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env) as (app, pilot):
            await _start(app, server)
            await _type(app, "typ", 8, 9, at=0)
            prompt = await wait_prompt(pilot)
            assert getattr(prompt, "waiting", False) and app.focused is not prompt
            _key(app, "tab")
            for _ in range(2000):  # no wait for idle: that could outlast the arming delay
                if app.focused is prompt:
                    break
                await asyncio.sleep(0.002)
            assert app.focused is prompt
            # Keys every 0.2 s for 1.6 s: each inside the 0.4 s delay, which starts over. A
            # key the machine delayed past the delay may rightly decide: the test then skips.
            last = time.monotonic()
            for char in "yAtnyAtn":
                if prompt.armed or time.monotonic() - last >= ARMING_S:
                    pytest.skip("the machine stretched this test's typing past the arming delay")
                _key(app, char)
                last = time.monotonic()
                await asyncio.sleep(0.2)
                assert prompt.decision is None, char
            if time.monotonic() - last < ARMING_S:
                assert not prompt.armed
            assert prompt_text(app) == "typ"  # after Tab the keys were for the prompt
            _assert_nothing_decided(app, env)
            await wait_for(pilot, lambda: prompt.armed, "the prompt to arm")
            _key(app, "n")
            await wait_idle_agent(pilot)
            assert prompt.decision is not None and prompt.decision.kind == "deny"
        server.assert_all_consumed()


@pytest.mark.parametrize(
    ("opener", "keys"),
    [
        ("r", "no way\n"),  # Enter would deny with the reason
        ("p", "\n"),  # Enter would keep "touch" as a prefix rule and approve
        ("e", "ctrl+s"),  # Ctrl+S would send the edited arguments
    ],
)
async def test_keys_right_after_an_input_opens_decide_nothing(
    env: AppEnv, opener: str, keys: str
) -> None:
    # `p` opens its field only for a program a prefix rule may cover (touch is not one).
    call = PREFIXABLE if opener == "p" else CALL
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(call)), answer(PROTOCOL, "Denied, ok."))
        async with running(server, env) as (app, pilot):
            box = app.query_one(PromptInput)
            box.insert("run it")
            box.submit()
            prompt = await wait_prompt(pilot)
            await wait_for(pilot, lambda: prompt.armed, "the prompt to arm")
            _key(app, opener)
            opened = time.monotonic()
            await asyncio.sleep(0.03)
            for char in [keys] if keys == "ctrl+s" else keys:  # within 0.4 s of the opener
                _key(app, char)
                last = time.monotonic()
                await asyncio.sleep(0.03)
            # The input arms 0.4 s after it opened, and it opened after the opener was pressed:
            # a key pressed within 0.4 s of the opener cannot find it armed.
            if last - opened >= ARMING_S:
                # The machine stretched this test's own typing past the arming delay: a key
                # after it may rightly decide. That run says nothing about keys right after.
                pytest.skip(f"the keys took {last - opened:.2f} s (a loaded machine)")
            await asyncio.sleep(0.2)
            _assert_nothing_decided(app, env)
            assert prompt.mode != "choose"
            _key(app, "escape")  # back to the choice, which arms again
            await wait_for(pilot, lambda: prompt.mode == "choose" and prompt.armed, "re-arming")
            _key(app, "n")
            await wait_idle_agent(pilot)
            assert prompt.decision is not None and prompt.decision.kind == "deny"
        server.assert_all_consumed()


async def test_typing_after_closing_the_session_browser_decides_nothing(env: AppEnv) -> None:
    """The prompt appeared behind the browser; the person closes it and goes on typing."""
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env) as (app, pilot):
            await _start(app, server)
            app.action_browse_sessions()
            await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser), "the browser")
            server.release()
            await wait_prompt(pilot)
            await asyncio.sleep(1.6)  # the prompt is there, behind the browser, long enough
            await _type(app, "ny", 8, 10)  # in the browser's search field
            _key(app, "escape")
            await asyncio.sleep(0.05)
            await _type(app, PHRASE * 2, 8, 11)
            await wait_for(pilot, lambda: prompt_text(app) == PHRASE * 2, "every key in the box")
            assert not isinstance(app.screen, SessionBrowser)
            _assert_nothing_decided(app, env)
            await _deny_after_a_pause(app, env)
            await wait_idle_agent(pilot)
        server.assert_all_consumed()
