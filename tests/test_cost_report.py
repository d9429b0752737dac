"""/cost: the session's cost per model and its compactions' summary requests, which count
toward the total (and max_cost) like any turn."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tui_agent.agent.cost_meter import CostMeter
from tui_agent.context.events import Compacted
from tui_agent.providers.cost import Price

from .agent_helpers import MODEL, agent_over, of_type
from .context_helpers import text_reply

PRICES = {"gpt-4o": Price(2.5, 10.0), MODEL: Price(1.0, 2.0)}


def test_the_report_splits_the_total_by_model_and_compactions() -> None:
    meter = CostMeter(PRICES)
    meter.add("openai-chat", "gpt-4o", {"prompt_tokens": 1_000_000, "completion_tokens": 0})
    meter.add("openai-chat", "gpt-4o", {"prompt_tokens": 0, "completion_tokens": 100_000})
    meter.add("openai-chat", "local-model", {"prompt_tokens": 10, "completion_tokens": 5})
    meter.add(
        "openai-chat", MODEL, {"prompt_tokens": 500_000, "completion_tokens": 0}, compaction=True
    )
    report = meter.report().splitlines()
    assert report[0] == "This session's cost: $4.00+?"
    assert report[1] == "  gpt-4o: $3.50 (2 turns; 1,000,000 in, 100,000 out)"
    assert report[2] == "  local-model: $? (1 turn; 10 in, 5 out)"
    assert report[3] == "  compactions: $0.5000 (1 request; 500,000 in, 0 out)"
    assert "no price known" in report[4]


def test_an_empty_session_says_so() -> None:
    assert CostMeter(PRICES).report() == "This session's cost: $0.0000\n  nothing sent yet"


async def test_a_compaction_is_counted(tmp_path: Path) -> None:
    protocol = "openai-chat"
    words = "Some detail of this exchange that takes room. " * 20
    answers = [text_reply(protocol, f"Answer {n}. {words}", 100_000 * n) for n in range(1, 4)]
    steps = [*answers, text_reply(protocol, "SUMMARY: short.", 200_000)]
    settings = {"context_window": 1_000_000, "max_retries": 0}
    async with agent_over(protocol, tmp_path, *steps, settings=settings, require_tools=False) as h:
        h.agent.cost = CostMeter(PRICES)
        for n in range(1, 4):
            await h.send(f"question {n}: {words}")
        before = h.agent.cost.spent
        async with asyncio.timeout(30):
            events = [event async for event in h.agent.compact()]
        assert of_type(events, Compacted)
        meter = h.agent.cost
        assert meter.compactions.priced == 1
        assert meter.spent > before
        assert "compactions: $" in meter.report()


async def test_slash_cost_in_the_app(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    from .fake_provider import FakeProvider
    from .ui_app_helpers import KEY, answer, make_env, running, send, wait_idle_agent, wait_text

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    env = make_env(tmp_path, monkeypatch)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(answer("openai-chat", "Hello."))
        async with running(server, env) as (_, pilot):
            await send(pilot, "hi")
            await wait_idle_agent(pilot)
            await send(pilot, "/cost")
            await wait_text(pilot, "This session's cost: $?")
            await wait_text(pilot, "  m: $? (1 turn;")
