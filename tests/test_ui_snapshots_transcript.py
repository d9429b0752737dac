"""Snapshots of the transcript: a user message, reasoning, a finished markdown answer with code,
tool cards in several states, a discarded answer and a notice.

Regenerate after an intended change with ``pytest tests/test_ui_snapshots_transcript.py
--snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from tui_agent.ui.widgets.assistant_message import AssistantMessage
from tui_agent.ui.widgets.reasoning_block import ReasoningBlock
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.ui.widgets.tool_result import ToolResultView
from tui_agent.ui.widgets.transcript import Transcript

from .approval_prompt_app import screen_still

SnapCompare = Callable[..., bool]

ANSWER = """## The fix

The bug is in `add`: it subtracted. Here is the corrected function:

```python
def add(a: int, b: int) -> int:
    \"\"\"Return the sum.\"\"\"
    return a + b
```

Then run the tests:

1. `pytest -q`
2. check the **coverage** report
"""


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


class TranscriptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(ToolCallCard, "clock", fake)
    return fake


def conversation(clock: Clock, *, expand: bool) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        transcript = pilot.app.query_one(Transcript)
        transcript.add_user("The add function returns wrong results. Can you fix it?")
        reasoning = transcript.start_reasoning()
        reasoning.append("The user says add is wrong. I should read the file, then fix it.")
        reasoning.finish()
        answer = transcript.start_assistant()
        for start in range(0, len(ANSWER), 9):
            answer.append(ANSWER[start : start + 9])
        answer.finish()

        done = transcript.add_tool_card(0, "call_1", "read_file")
        done.set_bytes(24)
        done.set_arguments_summary("src/calc.py")
        done.set_state("waiting")
        done.set_state("approved", "auto-approved: read-only tool")
        done.set_state("running")
        clock.now += 0.4
        done.set_state("done")
        done.set_result("def add(a, b):\n    return a - b\n", False)

        failed = transcript.add_tool_card(1, "call_2", "run_command")
        failed.set_arguments_summary("pytest -q")
        failed.set_state("running")
        clock.now += 2.0
        failed.set_state("failed")
        failed.set_result("F.\nFAILED test_add - assert -1 == 3\n1 failed, 1 passed\n", True)

        denied = transcript.add_tool_card(2, "call_3", "write_file")
        denied.set_arguments_summary("src/calc.py")
        denied.set_state("denied", "user: show me the diff first")

        invalid = transcript.add_tool_card(3, "call_4", "edit_file")
        invalid.set_state("invalid", "missing field: new")

        waiting = transcript.add_tool_card(0, "call_5", "edit_file")
        waiting.set_arguments_summary("src/calc.py")
        waiting.set_state("waiting")

        running = transcript.add_tool_card(1, "call_6", "run_command")
        running.set_arguments_summary("pytest -q")
        running.set_state("running")
        clock.now += 1.5

        preparing = transcript.add_tool_card(2, "call_7", "write_file")
        clock.now += 3.2
        preparing.set_bytes(18_304)

        cut = transcript.start_assistant()
        cut.append("I will now also update the README so that")
        cut.discard("turn discarded: the stream was cut; nothing ran")
        transcript.add_notice("connection reset: retrying in 2.0 s (attempt 2)", "warning")

        await pilot.pause()
        for message in transcript.query(AssistantMessage):
            await message.body.wait_idle()
        if expand:
            transcript.query_one(ReasoningBlock).collapsed = False
            await pilot.pause()
            await transcript.query_one(ReasoningBlock).body.wait_idle()
            for view in transcript.query(ToolResultView):
                view.toggle()
            transcript.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        await screen_still(pilot)  # drawn afresh and holding still, however loaded the machine

    return run_before


def test_transcript_snapshot(snap_compare: SnapCompare, clock: Clock) -> None:
    assert snap_compare(
        TranscriptApp(), terminal_size=(100, 60), run_before=conversation(clock, expand=False)
    )


def test_transcript_expanded_snapshot(snap_compare: SnapCompare, clock: Clock) -> None:
    assert snap_compare(
        TranscriptApp(), terminal_size=(100, 60), run_before=conversation(clock, expand=True)
    )
