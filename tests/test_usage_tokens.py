"""Usage is merged by field across a turn's usage events, and the token count in the status bar
is right after a turn, after resuming the session and after switching to another one."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tui_agent import assemble
from tui_agent.providers import PROTOCOLS, tokens_used
from tui_agent.stream.assembler import TurnAssembler
from tui_agent.stream.events import TurnEnd, UsageReported
from tui_agent.stream.turn import Turn
from tui_agent.stream.usage import merge_usage
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.session_switch import current_session_id
from tui_agent.ui.widgets.status_bar import StatusBar

from .fake_provider import FakeProvider
from .fixture_cases import CASES
from .ui_app_helpers import (
    SIZE,
    AppEnv,
    answer,
    make_app,
    running,
    send,
    wait_for,
    wait_idle_agent,
)

# The fake provider's Anthropic stream: message_start usage {input 5, output 1}, then
# message_delta usage {output 9}, as real servers split it.
ANTHROPIC_TURN = 5 + 9


def _case(name: str) -> bytes:
    (case,) = [c for c in CASES if c.name == name]
    return case.body


def test_anthropic_split_usage_keeps_the_input_tokens() -> None:
    """Real recordings: input tokens from message_start, output tokens from message_delta."""
    turn = assemble("anthropic", [_case("anthropic/sonnet4-text-then-tool-use")])
    assert turn.usage is not None
    assert (turn.usage["input_tokens"], turn.usage["output_tokens"]) == (377, 65)
    assert tokens_used("anthropic", turn.usage) == 377 + 65
    cut = assemble("anthropic", [_case("anthropic/sonnet37-tool-use-truncated-max-tokens")])
    assert cut.usage is not None
    assert (cut.usage["input_tokens"], cut.usage["output_tokens"]) == (450, 124)


@pytest.mark.parametrize(
    "name",
    [c.name for c in CASES if c.protocol == "anthropic"],
)
def test_every_anthropic_recording_counts_input_and_output(name: str) -> None:
    turn = assemble("anthropic", [_case(name)])
    assert turn.usage is not None
    assert turn.usage["input_tokens"] > 0 and turn.usage["output_tokens"] > 1


def test_merge_is_by_field_later_wins_nested_merged_null_keeps() -> None:
    assembler = TurnAssembler()
    assembler.feed(UsageReported({"a": 1, "d": {"x": 1}, "n": 5}))
    assembler.feed(UsageReported({"b": 2, "d": {"y": 2}, "n": None}))
    assembler.feed(UsageReported({"a": 3}))
    assembler.feed(TurnEnd("stop"))
    result = assembler.finish()
    assert isinstance(result, Turn)
    assert result.usage == {"a": 3, "d": {"x": 1, "y": 2}, "n": 5, "b": 2}
    piece = {"k": {"z": 1}}
    assert merge_usage(None, piece) == piece and merge_usage(None, piece) is not piece


@pytest.mark.parametrize(
    ("protocol", "usage", "tokens"),
    [
        ("anthropic", {"input_tokens": 5, "output_tokens": 9}, 14),
        ("anthropic", {"input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 9}, 114),
        ("openai-chat", {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}, 7),
        ("openai-chat", {"prompt_tokens": 3, "completion_tokens": 4}, 7),
        ("openai-responses", {"input_tokens": 3, "output_tokens": 4}, 7),
        ("gemini", {"promptTokenCount": 3, "totalTokenCount": 11}, 11),
        ("gemini", {"promptTokenCount": 3, "candidatesTokenCount": 5}, 8),
        ("gemini-interactions", {"total_input_tokens": 7, "total_output_tokens": 26}, 33),
        # Another protocol's names are not this one's: nothing is counted twice or guessed.
        ("openai-chat", {"input_tokens": 5, "output_tokens": 9}, 0),
        ("gemini", {"total_tokens": 5}, 0),
        ("anthropic", {"total_tokens": True, "input_tokens": -4, "output_tokens": "9"}, 0),
        ("openai-chat", None, 0),
        ("no-such-protocol", {"total_tokens": 5}, 0),
    ],
)
def test_tokens_used(protocol: str, usage: dict[str, object] | None, tokens: int) -> None:
    assert tokens_used(protocol, usage) == tokens


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_recording_with_usage_counts_its_total(case: Any) -> None:
    """Each protocol's reading of every real recording: where the usage gives a total, the count
    is that total; where it gives only parts (Anthropic), their sum; never zero when it counts."""
    turn = assemble(case.protocol, [case.body])
    usage = turn.usage or {}
    spec = PROTOCOLS[case.protocol]
    total = next((usage[k] for k in spec.usage.totals if isinstance(usage.get(k), int)), None)
    parts = sum(v for k in spec.usage.parts if isinstance(v := usage.get(k), int))
    if total:
        assert tokens_used(case.protocol, usage) == total
    elif parts:
        assert tokens_used(case.protocol, usage) == parts
    else:
        assert tokens_used(case.protocol, usage) == 0


def test_each_protocol_counts_some_real_recording() -> None:
    counted = {
        c.protocol for c in CASES if tokens_used(c.protocol, assemble(c.protocol, [c.body]).usage)
    }
    assert counted == set(PROTOCOLS)


def _tokens(app: TuiAgentApp) -> int:
    return app.query_one(StatusBar).tokens


async def _converse(server: FakeProvider, env: AppEnv, *messages: str) -> str:
    """A session with one answered turn per message; its id."""
    async with running(server, env) as (app, pilot):
        for message in messages:
            server.script(answer(server.protocol, f"re: {message}"))
            await send(pilot, message)
            await wait_for(pilot, lambda: server.steps_left == 0, "the request")
            await wait_idle_agent(pilot)
        assert _tokens(app) == ANTHROPIC_TURN * len(messages)
        session_id = current_session_id(app)
    assert session_id is not None
    return session_id


@pytest.mark.heavy
async def test_token_count_after_a_turn_and_after_resume(env: AppEnv) -> None:
    with FakeProvider("anthropic", api_key="fake-key-value") as server:
        session_id = await _converse(server, env, "hello", "again")
        app = make_app(server, env)
        app.options = dataclasses.replace(app.options, resume=session_id)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            assert current_session_id(app) == session_id
            assert _tokens(app) == 2 * ANTHROPIC_TURN
            server.script(answer(server.protocol, "third"))
            await send(pilot, "once more")
            await wait_for(pilot, lambda: server.steps_left == 0, "the request")
            await wait_idle_agent(pilot)
            assert _tokens(app) == 3 * ANTHROPIC_TURN
            await pilot.press("ctrl+q")


@pytest.mark.heavy
async def test_token_count_after_switching_sessions(env: AppEnv) -> None:
    with FakeProvider("anthropic", api_key="fake-key-value") as server:
        small = await _converse(server, env, "one")
        big = await _converse(server, env, "one", "two", "three")
        async with running(server, env) as (app, pilot):
            await app.switch_session(big)
            await wait_for(pilot, lambda: current_session_id(app) == big, "the switch")
            assert _tokens(app) == 3 * ANTHROPIC_TURN
            await app.switch_session(small)
            await wait_for(pilot, lambda: current_session_id(app) == small, "the switch")
            assert _tokens(app) == ANTHROPIC_TURN
