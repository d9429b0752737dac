"""Cost in money (issue 32, item 3): each protocol's usage priced (cached and reasoning tokens as
the provider bills them), the built-in table and prices.toml over it, ``run --json`` and
``sessions --json``, and ``[settings] max_cost`` stopping the loop before a request."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tui_agent.agent.cost_meter import CostMeter
from tui_agent.config.errors import ConfigFileError
from tui_agent.config.prices import load_prices
from tui_agent.providers.cost import BUILTIN, Billed, Price, billed, money, price_of, turn_cost

from .fake_provider import FakeProvider, Reply
from .run_helpers import KEY, MODEL, Home, final, read_call

PRICED = "claude-sonnet-4-5-20250929"  # the table's claude-sonnet-4-5: $3 in, $15 out


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    (made.workspace / "notes.txt").write_text("we ship on friday\n")
    return made


def test_each_protocols_usage_as_billed() -> None:
    chat = {
        "prompt_tokens": 1000,
        "completion_tokens": 300,
        "prompt_tokens_details": {"cached_tokens": 400},
        "completion_tokens_details": {"reasoning_tokens": 200},
    }
    assert billed("openai-chat", chat) == Billed(600, 400, 0, 300)
    responses = {
        "input_tokens": 1000,
        "output_tokens": 300,
        "input_tokens_details": {"cached_tokens": 400},
        "output_tokens_details": {"reasoning_tokens": 200},
    }
    assert billed("openai-responses", responses) == Billed(600, 400, 0, 300)
    anthropic = {
        "input_tokens": 50,
        "cache_read_input_tokens": 900,
        "cache_creation_input_tokens": 100,
        "output_tokens": 30,
    }
    assert billed("anthropic", anthropic) == Billed(50, 900, 100, 30)
    gemini = {
        "promptTokenCount": 1000,
        "cachedContentTokenCount": 400,
        "candidatesTokenCount": 100,
        "thoughtsTokenCount": 200,
    }
    assert billed("gemini", gemini) == Billed(600, 400, 0, 300)
    interactions = {
        "total_input_tokens": 1000,
        "total_cached_tokens": 400,
        "total_output_tokens": 100,
        "total_thought_tokens": 200,
    }
    assert billed("gemini-interactions", interactions) == Billed(600, 400, 0, 300)
    assert billed("anthropic", {}) is None and billed("anthropic", None) is None
    # $3/M in, $0.30/M cache reads, $3.75/M cache writes, $15/M out
    cost = turn_cost("anthropic", PRICED, anthropic, BUILTIN)
    assert cost == pytest.approx((50 * 3 + 900 * 0.3 + 100 * 3.75 + 30 * 15) / 1e6)


def test_prices_by_name_and_unknown_is_never_zero() -> None:
    assert price_of("gpt-4o-2024-08-06", BUILTIN) == BUILTIN["gpt-4o"]
    assert price_of("gpt-4o-mini", BUILTIN) == BUILTIN["gpt-4o-mini"]
    assert price_of("openai/gpt-5-mini", BUILTIN) == BUILTIN["gpt-5-mini"]
    assert price_of("qwen3:8b", BUILTIN) is None
    assert turn_cost("openai-chat", "qwen3:8b", {"prompt_tokens": 9}, BUILTIN) is None
    meter = CostMeter()
    meter.add("openai-chat", "qwen3:8b", {"prompt_tokens": 9})
    assert meter.total() == "$?" and meter.shown("qwen3:8b") == ""
    meter.add("openai-chat", "gpt-5", {"prompt_tokens": 1000, "completion_tokens": 100})
    assert meter.total() == "$0.0022+?"
    assert money(12.5) == "$12.50"


def test_a_price_file_adds_and_overrides(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(
        '[models."qwen3:8b"]\ninput = 0.1\noutput = 0.2\n[models.gpt-5]\ninput = 2\noutput = 20\n'
    )
    prices = load_prices(path)
    assert prices["qwen3:8b"] == Price(0.1, 0.2)
    assert prices["gpt-5"] == Price(2.0, 20.0)
    assert load_prices(tmp_path / "none.toml") == BUILTIN
    path.write_text('[models."x"]\ninput = -1\noutput = 1\n')
    with pytest.raises(ConfigFileError, match="input must be 0 or more"):
        load_prices(path)
    path.write_text('[models."x"]\ninput = 1\n')
    with pytest.raises(ConfigFileError, match="needs output"):
        load_prices(path)


def _priced(argv: list[str]) -> list[str]:
    argv[argv.index(MODEL)] = PRICED
    return argv


def test_run_reports_each_turns_cost_and_sessions_the_sum(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(Reply(read_call()), final("anthropic", "Friday."))
        done = home.run_argv(_priced(home.argv(server, "when?", "--json")))
    assert done.code == 0, done.stderr
    costs = [e["cost"] for e in done.events() if e["type"] == "turn_completed"]
    # each turn's usage as the fake provider reports it: 5 input tokens, 9 output tokens
    assert costs == [pytest.approx((5 * 3 + 9 * 15) / 1e6)] * 2
    listed = home.run_argv([sys.executable, "-m", "tui_agent.cli", "sessions", "--json"])
    (row,) = json.loads(listed.stdout)
    assert row["cost"] == pytest.approx(2 * (5 * 3 + 9 * 15) / 1e6)
    assert row["cost_unknown_turns"] == 0


def test_an_unpriced_model_costs_unknown(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(final("anthropic", "Hi."))
        done = home.run(server, "hello", "--json")
    assert done.code == 0, done.stderr
    assert [e["cost"] for e in done.events() if e["type"] == "turn_completed"] == [None]
    listed = home.run_argv([sys.executable, "-m", "tui_agent.cli", "sessions", "--json"])
    (row,) = json.loads(listed.stdout)
    assert row["cost"] is None and row["cost_unknown_turns"] == 1


def test_max_cost_stops_before_the_request_that_would_pass_it(home: Home) -> None:
    # Input free, output $100/M: the first turn (9 output tokens) costs $0.0009, past the
    # limit, so the request that would send the tool's result is never sent.
    home.write_config("[settings]\nmax_cost = 0.0005\n")
    (home.config / "tui-agent" / "prices.toml").write_text(
        f'[models."{PRICED}"]\ninput = 0\noutput = 100\n'
    )
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(Reply(read_call()), final("anthropic", "never sent"))
        done = home.run_argv(_priced(home.argv(server, "when?")))
        assert len(server.requests) == 1
    assert done.code == 2
    assert "max_cost $0.0005" in done.stderr and "stopped before the next request" in done.stderr


def test_max_cost_before_the_first_request(home: Home) -> None:
    home.write_config("[settings]\nmax_cost = 0.000001\n")
    with FakeProvider("anthropic", api_key=KEY) as server:
        done = home.run_argv(_priced(home.argv(server, "hello")))
        assert server.requests == []
    assert done.code == 2 and "would pass max_cost" in done.stderr


async def test_the_status_line_shows_the_sessions_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.widgets.status_bar import StatusBar
    from tui_agent.wiring.host_options import HostOptions

    from .ui_app_helpers import KEY_ENV, SIZE, make_env, send, wait_for, wait_idle_agent

    (tmp_path / "app").mkdir()
    env = make_env(tmp_path / "app", monkeypatch)
    with FakeProvider("anthropic", require_tools=False) as server:
        server.script(final("anthropic", "Hi."))
        options = HostOptions(
            protocol="anthropic",
            model=PRICED,
            base_url=server.base_url,
            api_key_env=KEY_ENV,
            workspace=str(env.workspace),
        )
        app = TuiAgentApp(options)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            status = app.query_one(StatusBar)
            assert status.cost == "$0.0000"
            await send(pilot, "hello")
            await wait_idle_agent(pilot)
            await wait_for(pilot, lambda: status.cost == "$0.0001", "the turn's cost")
            assert "$0.0001" in str(status.render())
            await pilot.press("ctrl+q")


def test_a_resumed_sessions_cost_counts_toward_max_cost(home: Home) -> None:
    (home.config / "tui-agent").mkdir(parents=True, exist_ok=True)
    (home.config / "tui-agent" / "prices.toml").write_text(
        f'[models."{PRICED}"]\ninput = 0\noutput = 100\n'
    )
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(final("anthropic", "Hi."))
        first = home.run_argv(_priced(home.argv(server, "hello")))
        assert first.code == 0, first.stderr
        (session,) = home.sessions()
        home.write_config("[settings]\nmax_cost = 0.0005\n")  # the first run spent $0.0009
        done = home.run_argv(_priced(home.argv(server, "again", "--session", session.stem)))
        assert len(server.requests) == 1
    assert done.code == 2 and "spent $0.0009" in done.stderr
