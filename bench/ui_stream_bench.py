"""What one streamed delta costs the UI when the answer is already long.

Two contenders, in the same run, each in a headless app (120x40) inside an anchored scroll
view, as in the transcript:

- MarkdownStream: one Textual Markdown widget fed through ``Markdown.get_stream`` (the plain way);
- frozen segments: tui_agent's AssistantMessage (finished ~8 KB segments rendered once into one
  widget each, only the tail live).

For each answer size the widget is first filled to that size (not timed), then deltas of 20
characters are appended one at a time, and after each the app is run until idle: every message
handled, the screen laid out and painted. The time is the process CPU time of that, per delta
(wall time on a shared machine says more about the neighbours); the median is reported.

    python3 bench/ui_stream_bench.py             # 1 KB, 100 KB, 500 KB: about 2 minutes
    python3 bench/ui_stream_bench.py --quick     # 1 KB and 100 KB, fewer deltas
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tui_agent, if not installed

from textual._wait import wait_for_idle
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from tui_agent.ui.widgets.assistant_message import AssistantMessage

DELTA = 20
SIZES = ((1_024, 30), (100 * 1_024, 15), (500 * 1_024, 5))  # answer size, deltas timed
QUICK_SIZES = ((1_024, 20), (100 * 1_024, 10))


def answer(size: int, seed: int = 11) -> str:
    """About ``size`` characters of markdown, ending in an open paragraph."""
    rng = random.Random(seed)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "*em*",
        "**strong**",
        "`code`",
        "epsilon",
        "[link](https://x.org)",
    ]
    blocks: list[str] = []
    total = 0
    while total < size:
        kind = rng.randrange(4)
        if kind == 0:
            block = "- " + "\n- ".join(" ".join(rng.choices(words, k=6)) for _ in range(4))
        elif kind == 1:
            block = "```python\n" + "\n".join(f"x_{i} = {i}" for i in range(8)) + "\n```"
        else:
            block = " ".join(rng.choices(words, k=rng.randrange(20, 60)))
        blocks.append(block)
        total += len(block) + 2
    return "\n\n".join(blocks)[:size] + "\n\nAnd so"


def tail_deltas(count: int) -> list[str]:
    text = " the stream goes on, word after word," * (count * DELTA // 30 + 1)
    return [text[i : i + DELTA] for i in range(0, count * DELTA, DELTA)]


class Host(App[None]):
    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.anchor()
            yield self.widget


async def settle() -> None:
    await asyncio.sleep(0)
    await wait_for_idle(0)


async def measure(
    widget: Widget, fill: Callable[[], object], append: Callable[[str], object], count: int
) -> tuple[float, int]:
    """Median CPU ms per delta, and the widgets mounted at the end."""
    app = Host(widget)
    async with app.run_test(headless=True, size=(120, 40)):
        await settle()
        result = fill()
        if asyncio.iscoroutine(result):
            await result
        await settle()
        times: list[float] = []
        for delta in tail_deltas(count):
            start = time.process_time()
            result = append(delta)
            if asyncio.iscoroutine(result):
                await result
            await settle()
            times.append((time.process_time() - start) * 1000)
        return statistics.median(times), len(app.screen.query("*"))


async def markdown_stream(text: str, count: int) -> tuple[float, int]:
    markdown = Markdown(text)
    streams: list[MarkdownStream] = []

    def fill() -> None:
        streams.append(Markdown.get_stream(markdown))

    async def append(delta: str) -> None:
        await streams[0].write(delta)

    try:
        return await measure(markdown, fill, append, count)
    finally:
        if streams:
            await streams[0].stop()


async def frozen_segments(text: str, count: int) -> tuple[float, int]:
    message = AssistantMessage()

    async def fill() -> None:
        message.append(text)
        await message.body.wait_idle()

    return await measure(message, fill, message.append, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer deltas")
    parser.add_argument("--only", type=int, help="just this answer size, in KB")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else SIZES
    if args.only:
        sizes = tuple(s for s in SIZES if s[0] == args.only * 1024) or ((args.only * 1024, 10),)
    print("| answer | deltas | MarkdownStream ms/delta | frozen segments ms/delta | ratio |")
    print("|---|---|---|---|---|")
    started = time.perf_counter()
    for size, count in sizes:
        text = answer(size)
        plain, plain_widgets = asyncio.run(markdown_stream(text, count))
        frozen, frozen_widgets = asyncio.run(frozen_segments(text, count))
        print(
            f"| {size // 1024} KB | {count} | {plain:.1f} ({plain_widgets:,} widgets) "
            f"| {frozen:.1f} ({frozen_widgets:,} widgets) | {plain / frozen:.1f}x |",
            flush=True,
        )
    print(f"\n{time.perf_counter() - started:.0f} s in all; CPU time, median of the deltas timed.")


if __name__ == "__main__":
    main()
