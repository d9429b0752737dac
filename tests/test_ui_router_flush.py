"""The router's coalescing of streamed text: at most ~30 updates a second, and never a flush
interval late. A burst (the events of one read, handled with no await between them) is shown in
one update at the end of the burst, not its first delta alone nor a timer's interval later."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult

from tests.support.clock import ManualClock
from tui_agent.agent.events import TurnStarted
from tui_agent.stream.events import TextDelta
from tui_agent.ui.arming import KeyClock
from tui_agent.ui.event_router import FLUSH_INTERVAL_S, EventRouter
from tui_agent.ui.widgets.side_panel import SidePanel
from tui_agent.ui.widgets.status_bar import StatusBar
from tui_agent.ui.widgets.transcript import Transcript


class RouterHost(App[None]):
    """What the router drives: the transcript, the status bar, the side panel."""

    host = None

    def compose(self) -> ComposeResult:
        yield Transcript()
        yield StatusBar()
        yield SidePanel()

    def withdraw_into_prompt(self) -> None:
        pass


async def test_a_burst_of_deltas_is_shown_in_one_update_at_the_end_of_the_burst() -> None:
    app = RouterHost()
    clock = ManualClock()
    app.key_clock = KeyClock(clock=clock)  # type: ignore[attr-defined]
    async with app.run_test(size=(100, 30)):
        router = EventRouter(app)
        router.handle(TurnStarted(1))  # flushes nothing: the interval does not start here
        deltas = [f"word{index} " for index in range(500)]
        appended: list[str] = []
        for delta in deltas:
            router.handle(TextDelta(delta))
        assert router._answer is None  # nothing yet: the burst is not over
        await asyncio.sleep(0)  # the loop's next turn: the burst has ended
        answer = router._answer
        assert answer is not None
        answer.body.append = appended.append  # what the next flushes bring
        assert answer.text == "".join(deltas)  # the whole burst, in its first update
        router.handle(TextDelta("more"))
        await asyncio.sleep(0)
        assert appended == []  # within the interval of the last flush: its timer shows it
        router.flush()
        assert appended == ["more"]
        clock.advance(2 * FLUSH_INTERVAL_S)
        router.handle(TextDelta(" and more"))
        await asyncio.sleep(0)
        assert appended == ["more", " and more"]  # an interval later: at the burst's end
