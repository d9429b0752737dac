"""Arming, PausedArming and KeyClock: the timing rules of every question that one key decides."""

from __future__ import annotations

from pathlib import Path

from tui_agent.ui.arming import ARMING_S, Arming, KeyClock, PausedArming

from .approval_prompt_app import PromptApp, make_request
from .support.clock import ManualClock


def test_started_when_nobody_types_it_arms_after_the_delay_and_keys_restart_it() -> None:
    arming = PausedArming(delay=0.4, pause=1.0)
    arming.start(10.0)
    assert not arming.waiting and not arming.armed(10.3)
    assert not arming.key(10.3)  # restarts: due 10.7
    assert not arming.armed(10.6)
    assert arming.armed(10.75) and arming.key(10.8)


def test_started_while_typing_it_waits_for_a_pause_then_arms() -> None:
    arming = PausedArming(delay=0.4, pause=1.0)
    arming.start(10.0, typing=True)
    assert arming.waiting
    for at in (10.5, 11.0, 11.5, 12.0):  # keys every 0.5 s: longer than the delay, no pause
        assert not arming.key(at)
    assert arming.waiting and not arming.armed(13.3)
    assert arming.armed(13.45) and not arming.waiting  # 1 s pause, then 0.4 s
    arming.start(20.0, typing=True)
    assert not arming.key(21.1)  # the pause happened (21.0), but 0.4 s had not passed: restart
    assert not arming.waiting and not arming.armed(21.45) and arming.armed(21.55)


def test_typing_before_last_tells_a_key_in_typing_from_one_after_a_pause() -> None:
    clock = KeyClock(pause=1.0)
    clock.pressed(10.0)
    clock.pressed(12.0)  # Ctrl+O after a pause
    assert clock.typing(12.1) and not clock.typing_before_last(12.1)
    clock.pressed(12.3)
    assert clock.typing_before_last(12.4)
    assert not clock.typing_before_last(13.5)  # not typing any more


def test_a_busy_app_counts_typing_from_when_it_caught_up() -> None:
    """Keys pressed at 10.0 and 10.3 that a busy app handles only at 11.6 (more may be waiting
    behind them): the person is still typing at 12.0, so a question opened by the second key
    waits for a pause instead of arming at once."""
    clock = KeyClock(pause=1.0)
    clock.pressed(10.0, handled=11.5)
    clock.pressed(10.3, handled=11.6)
    assert clock.typing(12.0) and clock.typing_before_last(12.0)
    assert not clock.typing(12.7)  # a pause after it caught up
    clock.pressed(20.0, handled=19.0)  # a clock that says "handled before pressed" counts as at
    assert clock.handled == 20.0


def test_a_key_pressed_while_arming_decides_nothing_however_late_it_is_handled() -> None:
    """A busy app handles at 10.6 a key pressed at 10.2, after the arming (due 10.4) was seen
    done: the key was pressed during the delay, so it decides nothing and the delay restarts."""
    for arming in (Arming(delay=0.4), PausedArming(delay=0.4, pause=1.0)):
        arming.start(10.0)
        assert arming.armed(10.5)  # a tick saw it armed
        assert not arming.key(10.2)  # then the late key: pressed before 10.4
        assert not arming.armed(10.55) and arming.due == 10.6
        assert arming.armed(10.6) and arming.key(10.65)  # a key pressed once armed decides


async def test_the_prompt_on_the_apps_clock_a_key_at_0_39_s_decides_nothing_at_0_41_s_it_does(
    tmp_path: Path,
) -> None:
    """The real prompt in an app whose clock is the test's: the same rule, to the hundredth."""
    clock = ManualClock()
    request = make_request("run_command", {"command": "touch out.txt"})
    # (no other widget: a key the prompt does not take would go there, not to the rule)
    app = PromptApp(request, tmp_path, arming_delay=ARMING_S, decoy_input=False, clock=clock)
    async with app.run_test() as pilot:
        prompt = app.prompt
        for _ in range(500):  # the call shown (real time; the app's clock stands still)
            if prompt.mode != "loading":
                break
            await pilot.pause(0.01)
        assert prompt.mode == "choose" and app.focused is prompt
        clock.advance(ARMING_S - 0.01)
        await pilot.pause()
        assert not prompt.armed
        await pilot.press("y")  # at 0.39 s: decides nothing, and the delay starts over
        assert prompt.decision is None and not app.decisions
        clock.advance(ARMING_S - 0.01)
        await pilot.pause()
        assert not prompt.armed  # 0.39 s after that key
        clock.advance(0.02)
        await pilot.pause()
        assert prompt.armed  # 0.41 s after it
        await pilot.press("y")
        await pilot.pause()
        assert [d.kind for d in app.decisions] == ["approve"]
