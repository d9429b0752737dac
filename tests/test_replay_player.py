"""The player: the script's events in order, at the recorded pace / speed, with pause, step and
speed changes; time is injected, so nothing here sleeps."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.replay_helpers import FrozenClock, InstantClock, demo_session, written_session
from tui_agent.agent.events import Notice, TurnTruncated
from tui_agent.replay import ReplayEvent, ReplayPlayer, ReplayScript, Step, UserSent
from tui_agent.replay.player import MAX_SPEED, MIN_SPEED
from tui_agent.session import SessionStore

SCRIPT = ReplayScript(
    (
        Step(0.0, UserSent("one")),
        Step(0.5, Notice("two")),
        Step(1.0, Notice("three")),
        Step(0.0, Notice("four")),
    )
)


async def play(player: ReplayPlayer) -> list[ReplayEvent]:
    return [event async for event in player.events()]


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.mark.parametrize(
    ("speed", "sleeps"), [(1.0, [0.5, 1.0]), (2.0, [0.25, 0.5]), (0.5, [1.0, 2.0]), (0, [])]
)
async def test_pace_is_the_recorded_one_divided_by_the_speed(
    speed: float, sleeps: list[float]
) -> None:
    clock = InstantClock()
    player = ReplayPlayer(SCRIPT, speed, clock)
    assert await play(player) == [step.event for step in SCRIPT]
    assert clock.sleeps == sleeps
    assert player.finished and player.position == 4
    assert player.describe().startswith("event 4 of 4 · speed ")


@pytest.mark.heavy
async def test_a_real_session_plays_exactly_its_script(tmp_path: Path) -> None:
    for path in (demo_session(tmp_path / "demo"), written_session(tmp_path / "w")):
        loaded = SessionStore(path.parent).load(str(path))
        script = ReplayScript.from_records(loaded.records, loaded.problems)
        clock = InstantClock()
        events = await play(ReplayPlayer(script, 2.0, clock))
        assert events == [step.event for step in script]
        assert sum(clock.sleeps) == pytest.approx(script.duration / 2)
    assert any(isinstance(event, TurnTruncated) for event in events)


async def test_pause_step_and_resume() -> None:
    player = ReplayPlayer(SCRIPT, 1.0, InstantClock())
    player.pause()
    seen: list[ReplayEvent] = []

    async def consume() -> None:
        async for event in player.events():
            seen.append(event)

    task = asyncio.create_task(consume())
    await settle()
    assert seen == [] and player.position == 0
    assert "paused" in player.describe()
    player.step()
    await settle()
    assert seen == [UserSent("one")] and player.paused
    player.step()  # the next one comes at once, without its delay
    await settle()
    assert seen == [UserSent("one"), Notice("two")]
    assert player.describe() == "event 2 of 4 · speed x1 · paused"
    player.resume()
    await asyncio.wait_for(task, 5)
    assert len(seen) == 4 and player.finished
    assert player.describe() == "event 4 of 4 · speed x1 · finished"


async def test_step_while_playing_pauses_after_one_event() -> None:
    player = ReplayPlayer(SCRIPT, 1.0, FrozenClock())  # time stands still: stuck on "two"
    events = player.events()
    assert await anext(events) == UserSent("one")
    waiting = asyncio.ensure_future(anext(events))
    await settle()
    assert not waiting.done()
    player.step()
    assert await asyncio.wait_for(waiting, 5) == Notice("two")
    assert player.paused
    await events.aclose()


async def test_a_speed_change_applies_to_the_pause_under_way() -> None:
    class Controlled(FrozenClock):
        time = 0.0

        def now(self) -> float:
            return self.time

    clock = Controlled()
    player = ReplayPlayer(ReplayScript((Step(1.0, Notice("late")),)), 1.0, clock)
    waiting = asyncio.ensure_future(anext(player.events()))
    await settle()
    assert clock.waits == [1.0]
    clock.time = 0.5  # half of the recorded second passed at x1 ...
    player.faster()  # ... the other half goes at x2
    await settle()
    assert clock.waits == [1.0, 0.25]
    player.slower()
    player.slower()  # x0.5 (both before the player woke): 0.5 recorded seconds owed
    await settle()
    assert clock.waits == [1.0, 0.25, 1.0]
    assert player.speed == 0.5
    waiting.cancel()


def test_speed_bounds() -> None:
    player = ReplayPlayer(SCRIPT, 1.0)
    player.faster()
    player.faster()
    assert player.speed == 4
    player.slower()
    assert player.speed == 2
    for _ in range(20):
        player.faster()
    assert player.speed == MAX_SPEED
    for _ in range(40):
        player.slower()
    assert player.speed == MIN_SPEED
    instant = ReplayPlayer(SCRIPT, 0)
    instant.faster()
    assert instant.speed == 0 and "speed instant" in instant.describe()
    instant.slower()
    assert instant.speed == MAX_SPEED
    with pytest.raises(ValueError):
        ReplayPlayer(SCRIPT, -1)
