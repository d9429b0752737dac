"""A turn's record is written in a worker thread (redacting a long answer's raw events takes a
while): the event loop, and with it the screen, keeps running meanwhile, and a cancel that comes
during the write waits for it, so the record is whole in the file and nothing overtakes it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import Any

from tui_agent.agent.events import AgentEvent, LoopEnded, TurnCompleted
from tui_agent.session.records import AssistantRecord

from .agent_helpers import Harness, agent_over, answer

PROTOCOL = "openai-chat"
WAIT_S = 10.0


class HeldWriter:
    """The real writer, whose assistant records wait for ``release`` (in the writer's thread)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.started = threading.Event()
        self.release = threading.Event()
        self.threads: list[str] = []

    @property
    def degraded(self) -> str | None:
        degraded: str | None = self.writer.degraded
        return degraded

    def append(self, record: Any, *, sync: bool | None = None) -> Any:
        if isinstance(record, AssistantRecord):
            self.threads.append(threading.current_thread().name)
            self.started.set()
            assert self.release.wait(WAIT_S)
        return self.writer.append(record, sync=sync)


async def _until(event: threading.Event) -> None:
    for _ in range(int(WAIT_S / 0.005)):
        if event.is_set():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the record was never written")


async def _sending_held(harness: Harness) -> tuple[HeldWriter, asyncio.Future[Any]]:
    """``hello`` sent, its answer's record held in the writer's thread."""
    held = HeldWriter(harness.agent.recorder.writer)
    harness.agent.recorder.writer = held
    sending = asyncio.ensure_future(harness.send("hello"))
    await _until(held.started)
    return held, sending


async def test_the_event_loop_runs_while_a_turn_is_written(tmp_path: Path) -> None:
    async with agent_over(PROTOCOL, tmp_path, answer(PROTOCOL, "All done.")) as harness:
        held, sending = await _sending_held(harness)
        ticks = 0
        for _ in range(5):  # the loop is free: other work (the screen) goes on
            await asyncio.sleep(0.01)
            ticks += 1
        assert ticks == 5 and not sending.done()
        assert held.threads != [threading.main_thread().name]
        held.release.set()
        events: list[AgentEvent] = await asyncio.wait_for(sending, WAIT_S)
        assert any(isinstance(e, TurnCompleted) for e in events)
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
        kinds = [r.type for r in harness.records()]
        assert kinds[-1] == "assistant", kinds
        harness.assert_session_valid()


async def test_a_cancel_during_the_write_waits_for_it(tmp_path: Path) -> None:
    async with agent_over(PROTOCOL, tmp_path, answer(PROTOCOL, "All done.")) as harness:
        held, sending = await _sending_held(harness)
        sending.cancel()
        await asyncio.sleep(0.2)
        assert not sending.done()  # still writing: the cancel waits for the record
        held.release.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(sending, WAIT_S)
        assert sending.done()
        records = harness.records()
        assert [r.type for r in records][-1] == "assistant"
        assert records[-1].text == "All done."
