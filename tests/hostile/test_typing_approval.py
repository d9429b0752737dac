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

import random

import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.arming import ARMING_S, PAUSE_S
from tui_agent.ui.screens.session_browser import SessionBrowser
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.prompt_input import PromptInput

from ..approval_prompt_app import screen_text
from ..fake_provider import FakeProvider, Reply, StallBeforeTerminal
from ..support.clock import ManualClock
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


def _clock(app: TuiAgentApp) -> ManualClock:
    clock = app.clock
    assert isinstance(clock, ManualClock)
    return clock


async def _advance(pilot: Pilot[None], seconds: float) -> None:
    """Time passes (only here: the app's clock is the test's), then the app catches up."""
    _clock(pilot.app).advance(seconds)  # type: ignore[arg-type]
    await pilot.pause()


async def _press(pilot: Pilot[None], char: str) -> None:
    """A key at the clock's present instant, handled at that same instant."""
    _key(pilot.app, char)
    await pilot.pause()


async def _shown_prompt(pilot: Pilot[None]) -> ApprovalPrompt:
    """The prompt once its call is shown (its arming runs from then), however long that took."""
    prompt = await wait_prompt(pilot)
    await wait_for(pilot, lambda: prompt.mode != "loading", "the call shown")
    return prompt


async def _type(pilot: Pilot[None], text: str, cps: float, seed: int, at: int = -1) -> list[str]:
    """Type ``text``; release the stalled reply after key ``at`` (and let the prompt appear
    before the next key). What was seen meanwhile. The clock stays at the last key."""
    app = pilot.app
    seen: list[str] = []
    server = getattr(app, "_test_server", None)
    for index, (char, gap) in enumerate(zip(text, _gaps(cps, len(text), seed), strict=True)):
        await _press(pilot, char)
        if index == at and server is not None:
            server.release()
            await _shown_prompt(pilot)  # real time passes for the reply, none on the app's clock
        prompts = app.query(ApprovalPrompt)
        if prompts:
            prompt = prompts.first()
            assert prompt.decision is None, (cps, seed, index, prompt.decision)
            seen.append("focused" if app.focused is prompt else "waiting")
            said = "said so" in seen  # drawing the screen for each key costs more than the key
            if not said and getattr(prompt, "waiting", False) and WAITING in screen_text(app):
                seen.append("said so")
        if index < len(text) - 1:
            await _advance(pilot, gap)
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


async def _deny_after_a_pause(pilot: Pilot[None], app: TuiAgentApp) -> None:
    """The person stops typing: after the pause the prompt takes focus, unarmed; it arms the
    arming delay later, and n denies."""
    prompt = app.query_one(ApprovalPrompt)
    await _advance(pilot, PAUSE_S + 0.1)  # the pause, and the prompt's next look
    assert app.focused is prompt and not prompt.armed
    await _advance(pilot, ARMING_S)
    assert prompt.armed and app.focused is prompt
    await _press(pilot, "n")
    await wait_for(pilot, lambda: prompt.decision is not None, "the decision")
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
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await _start(app, server)
            seen = await _type(pilot, text, cps, seed, at=min(3, len(text) // 4))
            await wait_for(pilot, lambda: prompt_text(app) == text, "every key in the box")
            _assert_nothing_decided(app, env)
            assert "waiting" in seen and "said so" in seen, seen
            assert "focused" not in seen, seen  # never took focus while the person typed
            await _deny_after_a_pause(pilot, app)
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
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await _start(app, server)
            await _type(pilot, "type ", 8, 7, at=1)
            prompt = app.query_one(ApprovalPrompt)
            await _advance(pilot, PAUSE_S + 0.1)  # a pause: the prompt takes focus
            assert app.focused is prompt, "focus after the pause"
            assert not prompt.armed
            await _type(pilot, PHRASE * 2, 12, 8)  # typing again, within the arming delay
            expected = "type " + PHRASE * 2
            await wait_for(pilot, lambda: prompt_text(app) == expected, "every key in the box")
            _assert_nothing_decided(app, env)
            await _deny_after_a_pause(pilot, app)
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
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await _start(app, server)
            server.release()
            prompt = await _shown_prompt(pilot)
            assert app.focused is prompt  # nobody typed: focus at once
            await _advance(pilot, ARMING_S)
            assert prompt.armed and app.focused is prompt
            for char in "/new then more":  # as fast as a paste or tmux sends them
                _key(app, char)
            await wait_for(pilot, lambda: prompt_text(app) == "/new then more", "the keys")
            _assert_nothing_decided(app, env)
            assert app.focused is not prompt
            await _deny_after_a_pause(pilot, app)
            await wait_idle_agent(pilot)
        server.assert_all_consumed()


async def test_tab_reaches_the_waiting_prompt_and_its_arming_restarts_on_every_key(
    env: AppEnv,
) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await _start(app, server)
            await _type(pilot, "typ", 8, 9, at=0)
            prompt = app.query_one(ApprovalPrompt)
            assert getattr(prompt, "waiting", False) and app.focused is not prompt
            await _press(pilot, "tab")
            assert app.focused is prompt and not prompt.armed
            # Keys every 0.2 s for 1.6 s: each inside the 0.4 s delay, which starts over.
            for char in "yAtnyAtn":
                await _advance(pilot, 0.2)
                assert not prompt.armed, char
                await _press(pilot, char)
                assert prompt.decision is None, char
            assert prompt_text(app) == "typ"  # after Tab the keys were for the prompt
            _assert_nothing_decided(app, env)
            await _advance(pilot, ARMING_S - 0.01)  # 0.39 s after the last key: not yet
            assert not prompt.armed
            await _press(pilot, "y")  # decides nothing, and the delay starts over from it
            assert prompt.decision is None and not prompt.armed
            await _advance(pilot, ARMING_S - 0.01)
            assert not prompt.armed
            await _advance(pilot, 0.02)  # 0.41 s after the last key: armed
            assert prompt.armed
            await _press(pilot, "n")
            await wait_idle_agent(pilot)
            assert prompt.decision is not None and prompt.decision.kind == "deny"
        server.assert_all_consumed()


async def test_a_key_pressed_before_the_arming_decides_nothing_even_if_handled_after(
    env: AppEnv,
) -> None:
    """A busy app handles a key late: the key was pressed 0.39 s into the arming, the app gets
    to it at 0.45 s, once the prompt shows as armed. It decides nothing (what counts is when it
    was pressed): it was typing, and goes to the message box."""
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await _start(app, server)
            server.release()
            prompt = await _shown_prompt(pilot)
            assert app.focused is prompt and not prompt.armed
            await _advance(pilot, ARMING_S - 0.01)
            with app.batch_update():  # nothing runs until the clock has moved on
                event = events.Key("y", "y")  # stamped now: 0.39 s
                _clock(app).advance(0.06)
            assert prompt.armed
            event.set_sender(app)
            app.post_message(event)
            await pilot.pause()
            assert prompt.decision is None
            _assert_nothing_decided(app, env)
            assert prompt_text(app) == "y"  # typing: it went to the box, with focus
            await _deny_after_a_pause(pilot, app)
            await wait_idle_agent(pilot)
        server.assert_all_consumed()


@pytest.mark.parametrize(
    ("opener", "keys"),
    [
        ("r", "no way\n"),  # Enter would deny with the reason
        ("p", "\n"),  # Enter would keep "ls" as a prefix rule and approve
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
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            box = app.query_one(PromptInput)
            box.insert("run it")
            box.submit()
            prompt = await _shown_prompt(pilot)
            await _advance(pilot, ARMING_S)
            assert prompt.armed
            await _press(pilot, opener)
            # Every key within 0.4 s of the opener (the input arms 0.4 s after it opened), the
            # last at 0.39 s.
            step = (ARMING_S - 0.01) / len([keys] if keys == "ctrl+s" else keys)
            for char in [keys] if keys == "ctrl+s" else keys:
                await _advance(pilot, step)
                await _press(pilot, char)
            await _advance(pilot, 0.2)
            _assert_nothing_decided(app, env)
            assert prompt.mode != "choose"
            await _press(pilot, "escape")  # back to the choice, which arms again
            assert prompt.mode == "choose" and not prompt.armed
            await _advance(pilot, ARMING_S)
            assert prompt.armed
            await _press(pilot, "n")
            await wait_idle_agent(pilot)
            assert prompt.decision is not None and prompt.decision.kind == "deny"
        server.assert_all_consumed()


async def test_typing_after_closing_the_session_browser_decides_nothing(env: AppEnv) -> None:
    """The prompt appeared behind the browser; the person closes it and goes on typing."""
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(CALL), faults=StallBeforeTerminal()), answer(PROTOCOL, "Denied, ok.")
        )
        async with running(server, env, clock=ManualClock()) as (app, pilot):
            await _start(app, server)
            app.action_act("sessions")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionBrowser), "the browser")
            server.release()
            await _shown_prompt(pilot)
            await _advance(pilot, 1.6)  # the prompt is there, behind the browser, long enough
            await _type(pilot, "ny", 8, 10)  # in the browser's search field
            await _press(pilot, "escape")
            await _advance(pilot, 0.05)
            await _type(pilot, PHRASE * 2, 8, 11)
            await wait_for(pilot, lambda: prompt_text(app) == PHRASE * 2, "every key in the box")
            assert not isinstance(app.screen, SessionBrowser)
            _assert_nothing_decided(app, env)
            await _deny_after_a_pause(pilot, app)
            await wait_idle_agent(pilot)
        server.assert_all_consumed()
