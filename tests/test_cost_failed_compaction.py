"""A compaction whose summary came back but was not applied was billed all the same: the live
session counts it, and so do a resumed session (its cost and max_cost) and ``sessions --json``,
from the ``compaction_failed`` note that keeps its usage."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from tui_agent.agent.cost_meter import CostMeter
from tui_agent.commands.sessions import session_cost
from tui_agent.context.events import CompactionFailed
from tui_agent.providers.cost import Price
from tui_agent.session.codec import encode_line
from tui_agent.session.loader import load_session
from tui_agent.session.records import NoteRecord

from .agent_helpers import MODEL, agent_over, of_type
from .context_helpers import text_reply
from .fake_provider import FakeProvider
from .run_helpers import KEY, Home, final

PRICES = {MODEL: Price(1.0, 2.0)}
PROTOCOL = "openai-chat"


async def test_an_unapplied_summary_is_recorded_with_its_usage(tmp_path: Path) -> None:
    words = "Some detail of this exchange that takes room. " * 20
    answers = [text_reply(PROTOCOL, f"Answer {n}. {words}", 100_000 * n) for n in range(1, 4)]
    steps = [*answers, text_reply(PROTOCOL, "   ", 200_000)]  # answered: no summary in it
    settings = {"context_window": 1_000_000, "max_retries": 0}
    async with agent_over(PROTOCOL, tmp_path, *steps, settings=settings, require_tools=False) as h:
        h.agent.cost = CostMeter(PRICES)
        for n in range(1, 4):
            await h.send(f"question {n}: {words}")
        async with asyncio.timeout(30):
            events = [event async for event in h.agent.compact()]
        [failed] = of_type(events, CompactionFailed)
        assert "the model wrote no summary" in failed.message
        live = h.agent.cost
        assert live.compactions.priced == 1
        path = h.writer.path
    [note] = [
        r
        for r in load_session(path).records
        if isinstance(r, NoteRecord) and r.kind == "compaction_failed"
    ]
    assert note.text == failed.message
    assert (note.protocol, note.model) == (PROTOCOL, MODEL) and note.usage
    assert session_cost(path, PRICES)["cost"] == pytest.approx(live.spent, abs=1e-6)


def test_other_notes_are_written_as_before() -> None:
    assert encode_line(NoteRecord(kind="rename", text="x")) == (
        b'{"ts":0.0,"type":"note","kind":"rename","text":"x"}\n'
    )


PRICED = "claude-sonnet-4-5-20250929"  # the table's claude-sonnet-4-5: $3 in, $15 out


def test_a_resumed_session_counts_it_toward_its_cost_and_max_cost(tmp_path: Path) -> None:
    home = Home(tmp_path)
    (home.config / "tui-agent").mkdir(parents=True, exist_ok=True)
    (home.config / "tui-agent" / "prices.toml").write_text(
        f'[models."{PRICED}"]\ninput = 0\noutput = 100\n'
    )
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(final("anthropic", "Hi."))
        argv = home.argv(server, "hello")
        argv[argv.index("--model") + 1] = PRICED
        first = home.run_argv(argv)
        assert first.code == 0, first.stderr  # spent $0.0009 (9 output tokens)
        (session,) = home.sessions()
        note = NoteRecord(
            kind="compaction_failed",
            text="compaction failed, nothing changed: the model wrote no summary",
            protocol="anthropic",
            model=PRICED,
            usage={"input_tokens": 0, "output_tokens": 40},  # $0.0040
        )
        with session.open("ab") as file:
            file.write(encode_line(note))
        listed = home.run_argv([sys.executable, "-m", "tui_agent.cli", "sessions", "--json"])
        (row,) = json.loads(listed.stdout)
        assert row["cost"] == pytest.approx(0.0049)
        home.write_config("[settings]\nmax_cost = 0.004\n")  # passed only with the compaction
        again = home.argv(server, "again", "--session", session.stem)
        again[again.index("--model") + 1] = PRICED
        done = home.run_argv(again)
        assert len(server.requests) == 1
    assert done.code == 2 and "spent $0.0049" in done.stderr
