"""Every character of a streamed answer reaches the screen, whatever the delta sizes and timing,
while the person scrolls, resizes, presses Esc, or the next answer starts (issue 19)."""

from __future__ import annotations

import asyncio
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.ui_stream_helpers import (
    Batch,
    Plan,
    TranscriptApp,
    assert_follows,
    assert_shown_whole,
    cut,
    full_speed,
    play,
    settle,
)
from tests.ui_transcript_helpers import chunks, sample_markdown
from tui_agent.ui.widgets.transcript import Transcript

ACTIONS = ("home", "end", "resize")
DELTAS_200K = chunks(sample_markdown(200_000, seed=0), 10_000, seed=0)


def prose(size: int, seed: int = 1) -> str:
    """Paragraphs of words: markdown that is cheap to render, for the largest sizes."""
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "*em*", "**strong**", "zeta", "ünï", "漢字"]
    parts: list[str] = []
    total = 0
    while total < size:
        part = " ".join(rng.choices(words, k=rng.randrange(30, 90))) + "\n\n"
        parts.append(part)
        total += len(part)
    return "".join(parts)


def _one_long_line(size: int) -> str:
    return "A single line " + " ".join(f"w{i}" for i in range(size // 5)) + " end"


@st.composite
def answers(draw: st.DrawFn) -> str:
    size = draw(st.integers(200, 30_000))
    seed = draw(st.integers(0, 1_000))
    shape = draw(st.sampled_from(["markdown", "markdown", "markdown", "line", "mixed"]))
    if shape == "line":
        return _one_long_line(size)
    text = sample_markdown(size, seed)
    if shape == "mixed":
        text += "\n\n" + _one_long_line(size // 4) + "\n\nAnd ünïcödé 漢字 🎉 at the end.\n"
    return text


@st.composite
def plans(draw: st.DrawFn, text: str) -> Plan:
    mode = draw(st.sampled_from(["sizes", "sizes", "chars", "whole"]))
    if mode == "chars":  # one character at a time
        sizes = [1]
    elif mode == "whole":  # one delta holding everything
        sizes = [len(text)]
    else:
        sizes = draw(st.lists(st.integers(1, 4_000), min_size=1, max_size=6))
    deltas = cut(text, sizes)
    per_batch = draw(st.lists(st.integers(1, 400), min_size=1, max_size=5))
    pauses = draw(st.lists(st.sampled_from([None, 0.0, 0.0, 0.002, 0.02]), min_size=1, max_size=5))
    actions = draw(st.dictionaries(st.integers(0, 40), st.sampled_from(ACTIONS), max_size=4))
    batches: list[Batch] = []
    position = 0
    while position < len(deltas):
        count = per_batch[len(batches) % len(per_batch)]
        index = len(batches)
        pause = pauses[index % len(pauses)]
        batches.append(Batch(deltas[position : position + count], pause, actions.get(index)))
        position += count
    ending = draw(st.sampled_from(["finish", "finish", "discard", "next"]))
    return Plan(batches, ending)


async def _scenario(text: str, plan: Plan) -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        transcript.add_user("the question")
        answer, last = await play(pilot, transcript, plan)
        second_text = ""
        if plan.ending == "next":  # the next answer starts while this one is being frozen
            second_text = sample_markdown(3_000, seed=len(text))
            second = transcript.start_assistant()
            await full_speed(second.append, chunks(second_text, 50), per_read=5)
            second.finish()
            await settle(second.body, pilot)
            assert_shown_whole(second.body, second_text)
        await settle(answer.body, pilot)
        assert_shown_whole(answer.body, text)
        if last != "home":
            await pilot.pause()
            assert_follows(transcript)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_every_character_reaches_the_screen_whatever_the_deltas_and_timing(
    data: st.DataObject,
) -> None:
    text = data.draw(answers(), label="answer")
    plan = data.draw(plans(text), label="plan")
    asyncio.run(_scenario(text, plan))


async def test_a_200_kb_answer_in_10_000_deltas_at_full_speed_is_shown_whole() -> None:
    """The case of issue 19 (it stopped being displayed at about 15 KB). Appending at every
    read of 20 deltas made the old pump die in 6 runs of 6."""
    text = sample_markdown(200_000, seed=0)
    app = TranscriptApp()
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = app.query_one(Transcript)
        answer = transcript.start_assistant()
        for start in range(0, 10_000, 20):
            answer.append("".join(DELTAS_200K[start : start + 20]))
            await asyncio.sleep(0)
        answer.finish()
        await settle(answer.body, pilot)
        assert_shown_whole(answer.body, text)
        assert_follows(transcript)


async def test_a_one_megabyte_delta_is_shown_whole() -> None:
    text = prose(1_000_000)
    app = TranscriptApp()
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = app.query_one(Transcript)
        answer = transcript.start_assistant()
        answer.append(text[:100])
        await asyncio.sleep(0)  # the live widget is being mounted when the rest arrives
        answer.append(text[100:])
        answer.finish()
        await settle(answer.body, pilot)
        assert_shown_whole(answer.body, text)
        assert_follows(transcript)
