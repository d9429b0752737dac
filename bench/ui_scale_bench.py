"""How the UI holds up with a 5,000-message session: opening, scrolling, adding, streaming.

Every case runs headless (120x40) in tui-agent's own app: ``TuiAgentApp``'s screen, CSS and
widgets (Transcript, StatusBar, SidePanel, PromptInput) with the real ``EventRouter`` fed the
way the agent feeds it (``show_history`` for a resumed session, ``handle`` for stream events).
Only the boot (provider, session files) is skipped: the router is built on ``Ready``.

"Painted" is the moment Textual's compositor last rendered the screen because of what was
done: ``Screen._compositor_refresh`` is wrapped to stamp ``perf_counter`` after each frame, the
app is then run until idle (every message handled, no layout or repaint pending), and the time
reported is the last stamp minus the moment the action started. So the waiting for idle is not
counted, only the work and the frame scheduling (Textual paints at most 60 times a second: up
to 16.7 ms of the time is waiting for the next frame). The floor of that, an empty update (one
word in the status bar), is measured and printed too. The cursor blink is off, so no unrelated
frame is stamped. Times are wall clock, medians of the repetitions; memory is tracemalloc
(retained after opening, and peak) in a separate run.

    python3 bench/ui_scale_bench.py            # full: about 2 minutes
    python3 bench/ui_scale_bench.py --quick    # smoke run: fewer repetitions, 1,000 messages
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tui_agent, if not installed

from textual._wait import wait_for_idle
from textual.screen import Screen

from tui_agent.agent.events import TurnStarted
from tui_agent.conversation import AssistantMessage, ToolResultMessage, UserMessage
from tui_agent.stream.events import TextDelta
from tui_agent.stream.progress import ToolCallAnnounced
from tui_agent.stream.turn import ToolCall
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.event_router import FLUSH_INTERVAL_S, EventRouter
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.status_bar import StatusBar
from tui_agent.ui.widgets.transcript import Transcript

SIZE = (120, 40)
WORDS = ("alpha", "beta", "gamma", "delta", "*em*", "**strong**", "`code`", "[link](https://x.org)")

# -- when the screen was painted ------------------------------------------------------------

_paints: list[float] = []
_original_refresh = Screen._compositor_refresh


def _stamped_refresh(self: Screen) -> None:
    _original_refresh(self)
    _paints.append(time.perf_counter())


Screen._compositor_refresh = _stamped_refresh  # type: ignore[method-assign]


async def settle(app: TuiAgentApp) -> None:
    """Run until idle: no CPU used for a while and nothing left to lay out or paint."""
    for _ in range(50):
        await asyncio.sleep(0)
        await wait_for_idle(0.05)
        screen = app.screen
        if not (screen._layout_required or screen._repaint_required or screen._dirty_widgets):
            return


async def painted_after(app: TuiAgentApp, start: float, first: bool = False) -> float:
    """Settle, then ms from ``start`` to the last frame painted (nan if none was); with
    ``first``, to the first frame (a scroll animates, a preparing card's spinner ticks)."""
    await settle(app)
    after = [stamp for stamp in _paints if stamp >= start]
    return ((after[0] if first else after[-1]) - start) * 1000 if after else float("nan")


# -- the app and the session ----------------------------------------------------------------


class BenchApp(TuiAgentApp):
    """TuiAgentApp without the boot: the router is made on Ready, no provider, no files."""

    def on_ready(self) -> None:
        from tui_agent.ui.widgets import assistant_message, reasoning_block  # noqa: F401

        self.query_one(PromptInput).cursor_blink = False
        self.router = EventRouter(self)


def markdown(rng: random.Random, size: int) -> str:
    blocks: list[str] = []
    total = 0
    while total < size:
        kind = rng.randrange(4)
        if kind == 0:
            block = "- " + "\n- ".join(" ".join(rng.choices(WORDS, k=6)) for _ in range(3))
        elif kind == 1:
            block = "```python\n" + "\n".join(f"x_{i} = {i}" for i in range(4)) + "\n```"
        else:
            block = " ".join(rng.choices(WORDS, k=rng.randrange(15, 40)))
        blocks.append(block)
        total += len(block) + 2
    return "\n\n".join(blocks)


def session(count: int, seed: int = 7) -> list:
    """``count`` messages: user and ~500-char markdown answers; every 10th answer makes a tool
    call, followed by its result (a tool card)."""
    rng = random.Random(seed)
    messages: list = []
    while len(messages) < count:
        turn = len(messages)
        messages.append(UserMessage(f"Question {turn}: " + " ".join(rng.choices(WORDS, k=20))))
        calls: tuple[ToolCall, ...] = ()
        if turn % 20 == 0:
            calls = (ToolCall(f"call_{turn}", "read_file", '{"path": "src/app.py"}'),)
        messages.append(AssistantMessage("openai", markdown(rng, 500), calls))
        for call in calls:
            messages.append(ToolResultMessage(call.id, call.name, "line\n" * 20))
    return messages[:count]


async def booted(app: TuiAgentApp) -> None:
    for _ in range(100):
        if app.router is not None:
            break
        await asyncio.sleep(0.01)
    await settle(app)


async def open_session(count: int, memory: bool = False) -> dict[str, float]:
    """Open a session of ``count`` messages; ms from show_history to the last screen painted."""
    messages = session(count)
    app = BenchApp()
    async with app.run_test(headless=True, size=SIZE):
        await booted(app)
        if memory:
            tracemalloc.start()
        start = time.perf_counter()
        app.router.show_history(messages)
        ms = await painted_after(app, start)
        result = {"ms": ms, "items": app.query_one(Transcript).item_count}
        if memory:
            current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            result.update(retained_mb=current / 2**20, peak_mb=peak / 2**20)
        return result


# -- with the big session loaded ------------------------------------------------------------


async def loaded_cases(count: int, reps: int) -> dict[str, list[float]]:
    app = BenchApp()
    keys = ("floor", "pageup", "scrolled", "user", "answer", "card")
    out: dict[str, list[float]] = {k: [] for k in keys}
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await booted(app)
        app.router.show_history(session(count))
        await settle(app)
        transcript = app.query_one(Transcript)
        status = app.query_one(StatusBar)
        router = app.router
        rng = random.Random(3)

        for i in range(reps * 2):  # the floor: an empty update, one word in the status bar
            start = time.perf_counter()
            status.hint = f"floor {i}"
            out["floor"].append(await painted_after(app, start))

        transcript.focus()
        await settle(app)
        for _ in range(reps * 2):  # page up from the bottom; the last ones load older items
            start = time.perf_counter()
            await pilot.press("pageup")
            out["pageup"].append(await painted_after(app, start, first=True))
            out["scrolled"].append(await painted_after(app, start))

        transcript.scroll_end(animate=False, immediate=True)
        app.query_one(PromptInput).focus()
        await settle(app)
        for _ in range(reps):  # a new message at the bottom: the user's, then a whole answer
            start = time.perf_counter()
            transcript.add_user("And another question: " + " ".join(rng.choices(WORDS, k=40)))
            out["user"].append(await painted_after(app, start))
            start = time.perf_counter()
            answer = transcript.start_assistant()
            answer.append(markdown(rng, 500))
            answer.finish()
            out["answer"].append(await painted_after(app, start))

        for i in range(reps * 2):  # ToolCallAnnounced reaching the router -> card painted
            router.handle(TurnStarted(i + 2))
            await settle(app)
            start = time.perf_counter()
            router.handle(ToolCallAnnounced(0, f"bench_{i}", "read_file"))
            out["card"].append(await painted_after(app, start, first=True))
    return out


async def streaming(count: int, sizes: tuple[int, ...], deltas: int) -> dict[int, list[float]]:
    """Per answer size: ms from a 20-char TextDelta reaching the router to the frame painted."""
    app = BenchApp()
    out: dict[int, list[float]] = {}
    async with app.run_test(headless=True, size=SIZE):
        await booted(app)
        app.router.show_history(session(count))
        await settle(app)
        router = app.router
        rng = random.Random(5)
        for step, size in enumerate(sizes):
            router.handle(TurnStarted(step + 1))
            router.handle(TextDelta(markdown(rng, size) + "\n\nAnd so"))
            router.flush()
            await router._answer.body.wait_idle()
            await settle(app)
            times: list[float] = []
            for _ in range(deltas):
                # A delta arriving after the coalescing interval is flushed at once; sooner, it
                # would wait for the next flush (up to 33 ms, by design).
                await asyncio.sleep(FLUSH_INTERVAL_S)
                start = time.perf_counter()
                router.handle(TextDelta(" the stream goes on, "))
                times.append(await painted_after(app, start))
            out[size] = times
            router._answer.finish()
            await settle(app)
    return out


# -- the report -----------------------------------------------------------------------------


def med(values: list[float]) -> float:
    return statistics.median(v for v in values if v == v)


def row(name: str, value: str, goal: str, holds: bool) -> None:
    print(f"| {name} | {value} | {goal} | {'yes' if holds else '**no**'} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 messages, fewer repetitions")
    args = parser.parse_args()
    big, small = (1_000, 50) if args.quick else (5_000, 50)
    reps, deltas = (2, 8) if args.quick else (5, 25)
    sizes = (2 * 1024, 50 * 1024) if args.quick else (2 * 1024, 200 * 1024)
    started = time.perf_counter()

    asyncio.run(open_session(small))  # warm-up: imports, CSS, first markdown render
    opened: dict[int, list[float]] = {small: [], big: []}
    for _ in range(reps):  # alternate, so both see the same machine
        for count in (small, big):
            opened[count].append(asyncio.run(open_session(count))["ms"])
    mem = asyncio.run(open_session(big, memory=True))
    loaded = asyncio.run(loaded_cases(big, reps))
    stream = asyncio.run(streaming(big, sizes, deltas))

    o_small, o_big = med(opened[small]), med(opened[big])
    s_small, s_big = med(stream[sizes[0]]), med(stream[sizes[1]])
    kb = [s // 1024 for s in sizes]
    items = f"{mem['items']:,} items, incl. tool cards"
    print(f"\n{big:,}-message session ({items}), {SIZE[0]}x{SIZE[1]}")
    print("| measure | value | goal | holds |")
    print("|---|---|---|---|")
    row(f"open {small} messages to last screen", f"{o_small:.0f} ms", "baseline", True)
    row(f"open {big:,} messages to last screen", f"{o_big:.0f} ms", "", True)
    row("open ratio", f"{o_big / o_small:.2f}x", "<= 1.5x", o_big / o_small <= 1.5)
    row(
        f"memory, {big:,} messages (retained / peak)",
        f"{mem['retained_mb']:.1f} / {mem['peak_mb']:.1f} MB",
        "< 150 MB",
        mem["peak_mb"] < 150,
    )
    row("page up, to painted (median / max)", _mm(loaded["pageup"]), "< 100 ms", _ok(loaded, 100))
    row("page up, animation over (median)", f"{med(loaded['scrolled']):.0f} ms", "", True)
    row("new user message, to painted", _mm(loaded["user"]), "< 250 ms", _ok(loaded, 250, "user"))
    row("new 500-char answer, to painted", _mm(loaded["answer"]), "< 250 ms", _ok(loaded, 250))
    row(f"stream delta at {kb[0]} KB, to painted", f"{s_small:.1f} ms", "< 50 ms", s_small < 50)
    row(f"stream delta at {kb[1]} KB, to painted", f"{s_big:.1f} ms", "< 50 ms", s_big < 50)
    ratio = s_big / s_small
    row(f"stream ratio {kb[1]} KB / {kb[0]} KB", f"{ratio:.2f}x", "<= 1.5", ratio <= 1.5)
    card = med(loaded["card"])
    row("tool card, announced to painted", _mm(loaded["card"]), "median <= 17 ms", card <= 17)
    row("floor: empty update to painted", _mm(loaded["floor"]), "(reference)", True)
    elapsed = time.perf_counter() - started
    print(f"\n{elapsed:.0f} s in all; wall clock, medians of the repetitions.")


def _mm(values: list[float]) -> str:
    return f"{med(values):.1f} / {max(v for v in values if v == v):.1f} ms"


def _ok(loaded: dict[str, list[float]], budget: float, key: str = "") -> bool:
    name = key or ("pageup" if budget == 100 else "answer")
    return max(v for v in loaded[name] if v == v) < budget


if __name__ == "__main__":
    main()
