"""Network, part 1: a request that failed before its first byte is sent again, after the wait the
server asked for (retry-after 2, retry-after-ms, an HTTP date), never longer than the configured
cap (1e9, a far-future date), and never a negative, NaN or garbage wait; the user sees it counting
down (the app) or as an event (`tui-agent run --json`). 503 and 529 before any byte are retried.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent.agent.events import AgentEvent, LoopEnded, TurnStarted, TurnTruncated
from tui_agent.conversation import UserMessage
from tui_agent.providers import RequestSettings, request_builder
from tui_agent.stream.progress import RetryWait
from tui_agent.stream.turn import Turn, TurnResult
from tui_agent.transport import RetryPolicy, StreamLimits, retry_after_seconds, stream_turn
from tui_agent.ui.widgets.status_bar import StatusBar

from .. import wire
from ..agent_helpers import LOOP_TIMEOUT_S, agent_over, check_order, of_type
from ..agent_helpers import answer as agent_answer
from ..approval_prompt_app import screen_text
from ..fake_provider import FakeProvider, Status
from ..run_helpers import KEY, Home, JsonLines, LineReader, final, types
from ..support.clock import ManualClock
from ..support.waiting import WAIT_S
from ..ui_app_helpers import KEY as APP_KEY
from ..ui_app_helpers import AppEnv, running, send, wait_idle_agent, wait_text

PROTOCOLS = list(wire.BUILDERS)
CAP_S = 0.3  # the configured cap on a server's retry-after, in these tests
BACKOFF_S = 0.05  # our own backoff's cap, in these tests
FAR_FUTURE = "Fri, 31 Dec 9999 23:59:59 GMT"


def _gap(server: FakeProvider) -> float:
    """Seconds between the first request and its re-send, as the server saw them."""
    first, second = server.requests[:2]
    return second.at - first.at


async def _one_turn(server: FakeProvider, retry: RetryPolicy) -> tuple[TurnResult, list[RetryWait]]:
    """One turn through the real transport against ``server``; the waits it announced."""
    request = request_builder(server.protocol)(
        [UserMessage("hi")], [], RequestSettings(model="m", base_url=server.base_url)
    )
    waits: list[RetryWait] = []
    async with httpx.AsyncClient() as client, asyncio.timeout(LOOP_TIMEOUT_S):
        result = await stream_turn(
            client,
            request,
            server.protocol,
            server.protocol,
            limits=StreamLimits(retry=retry),
            on_progress=lambda _: None,
            on_retry=waits.append,
            record=lambda *_: None,
        )
    return result, waits


def _in(seconds: float) -> str:
    return email.utils.formatdate(time.time() + seconds, usegmt=True)


# (headers of the 429, the least and the most it may wait, the configured cap). A server's ask
# is honoured up to the cap; anything unusable falls back to our own backoff (at most BACKOFF_S).
HEADER_CASES = [
    pytest.param({"retry-after-ms": "250"}, 0.25, 0.25, CAP_S, id="retry-after-ms"),
    pytest.param(
        {"retry-after-ms": "200", "retry-after": "30"}, 0.2, 0.2, CAP_S, id="retry-after-ms-wins"
    ),
    pytest.param({"retry-after": "DATE+1.5"}, 0.3, 1.5, 60.0, id="http-date"),
    pytest.param(
        {"retry-after": "Sun, 06 Nov 1994 08:49:37 GMT"}, 0, 0, CAP_S, id="http-date-past"
    ),
    pytest.param({"retry-after": "1e9"}, CAP_S, CAP_S, CAP_S, id="1e9-capped"),
    pytest.param({"retry-after-ms": "1e12"}, CAP_S, CAP_S, CAP_S, id="1e12-ms-capped"),
    pytest.param({"retry-after": FAR_FUTURE}, CAP_S, CAP_S, CAP_S, id="far-future-date-capped"),
    pytest.param({"retry-after": "-5"}, 0, BACKOFF_S, CAP_S, id="negative"),
    pytest.param({"retry-after-ms": "-300"}, 0, BACKOFF_S, CAP_S, id="negative-ms"),
    pytest.param({"retry-after": "NaN"}, 0, BACKOFF_S, CAP_S, id="nan"),
    pytest.param(
        {"retry-after-ms": "nan", "retry-after": "inf"}, 0, BACKOFF_S, CAP_S, id="nan-inf"
    ),
    pytest.param({"retry-after": "soon, please"}, 0, BACKOFF_S, CAP_S, id="garbage"),
]


@pytest.mark.parametrize(("headers", "least", "most", "cap"), HEADER_CASES)
async def test_429_retry_after_is_waited_for_and_capped(
    headers: dict[str, str], least: float, most: float, cap: float
) -> None:
    if headers.get("retry-after") == "DATE+1.5":
        headers = {"retry-after": _in(1.5)}  # whole seconds: 0.5 to 1.5 s from now
    with FakeProvider("openai-chat", require_tools=False) as server:
        server.script(Status(429, headers), agent_answer(server.protocol, "After the wait."))
        retry = RetryPolicy(max_retries=1, max_delay_s=BACKOFF_S, max_retry_after_s=cap)
        result, waits = await _one_turn(server, retry)
        server.assert_all_consumed()
        assert len(server.requests) == 2
        gap = _gap(server)
    assert isinstance(result, Turn) and result.text == "After the wait."
    [wait] = waits
    assert (wait.attempt, wait.why) == (2, "HTTP 429")
    assert math.isfinite(wait.seconds) and least <= wait.seconds <= most, wait
    # Never early; how late is the machine's (the cap is what it announced, and slept: a wait
    # past the cap shows in ``wait.seconds``, and a 1e9 s one never ends the turn's bound).
    assert gap >= wait.seconds, "re-sent before the wait was over"


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(["retry-after", "retry-after-ms"]),
    value=st.one_of(
        st.text(max_size=40),
        st.floats().map(repr),
        st.integers().map(str),
        st.datetimes().map(lambda d: email.utils.format_datetime(d) + " GMT"),
    ),
)
def test_any_retry_after_value_gives_a_sane_wait(name: str, value: str) -> None:
    policy = RetryPolicy(max_delay_s=BACKOFF_S, max_retry_after_s=CAP_S)
    headers: Mapping[str, str] = {name: value}
    wait = policy.delay(1, headers)
    assert math.isfinite(wait) and 0.0 <= wait <= CAP_S


@pytest.fixture
def local_time_not_gmt() -> Iterator[None]:
    """The machine's local time zone is New York for the test's duration."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


@pytest.mark.usefixtures("local_time_not_gmt")
@pytest.mark.parametrize("zone", ["GMT", "+0000", "-0000", ""], ids=["gmt", "utc", "unknown", "no"])
def test_an_http_date_is_read_as_gmt_whatever_the_zone_says(zone: str) -> None:
    """HTTP dates are GMT; a date whose zone is missing is not read as the machine's local time."""
    now = 1_700_000_000.0
    when = email.utils.formatdate(now + 30, usegmt=True).removesuffix(" GMT")
    assert retry_after_seconds({"retry-after": f"{when} {zone}".strip()}, now=now) == 30.0


def test_the_default_cap_on_retry_after_is_60_seconds() -> None:
    assert RetryPolicy().delay(1, {"retry-after": "1e9"}) == 60.0


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_503_and_529_before_any_byte_are_retried(protocol: str, tmp_path: Path) -> None:
    async with agent_over(
        protocol,
        tmp_path,
        Status(503),
        Status(529),
        agent_answer(protocol, "Third time lucky."),
        settings={"retry_max_wait": BACKOFF_S},
    ) as h:
        events = await h.send("hello")
        assert len(h.server.requests) == 3
        h.server.assert_all_consumed()
        waits = of_type(events, RetryWait)
        assert [(w.attempt, w.why) for w in waits] == [(2, "HTTP 503"), (3, "HTTP 529")]
        assert all(0 <= w.seconds <= BACKOFF_S for w in waits)
        assert events[-1] == LoopEnded("complete")
        assert [r.type for r in h.records()] == ["user", "assistant"]
        h.assert_session_valid()


async def test_esc_during_a_retry_wait_sends_nothing_more(tmp_path: Path) -> None:
    protocol = "anthropic"
    async with agent_over(
        protocol, tmp_path, Status(529, {"retry-after": "20"}), agent_answer(protocol)
    ) as h:
        before = asyncio.all_tasks()
        events: list[AgentEvent] = []
        async with asyncio.timeout(LOOP_TIMEOUT_S) as bound:
            async for event in h.agent.send("hello"):
                events.append(event)
                if isinstance(event, RetryWait):
                    h.agent.cancel()
                    # Far below the 20 s asked for: a loop that slept it out fails here.
                    bound.reschedule(asyncio.get_running_loop().time() + WAIT_S)
        check_order(events)
        assert isinstance(events[0], TurnStarted)
        [truncated] = of_type(events, TurnTruncated)
        assert truncated.turn.error == "cancelled by user"
        assert events[-1].outcome == "cancelled"
        assert asyncio.all_tasks() - before == set()
        await asyncio.sleep(0.2)
        assert len(h.server.requests) == 1


@pytest.mark.heavy
async def test_the_app_counts_the_retry_after_2_wait_down(env: AppEnv) -> None:
    """The countdown follows the app's clock (the test's): each second it moves, one less."""
    clock = ManualClock()
    with FakeProvider("openai-chat", api_key=APP_KEY) as server:
        server.script(Status(429, {"retry-after": "2"}), final(server.protocol, "Waited."))
        async with running(server, env, clock=clock) as (app, pilot):
            status = app.query_one(StatusBar)
            await send(pilot, "hello")
            await wait_text(pilot, "retrying in 2 s (HTTP 429)")
            assert "HTTP 429: retrying in 2.0 s (attempt 2)" in screen_text(app)
            clock.advance(0.5)
            assert status.connection == "retrying in 2 s (HTTP 429)"
            clock.advance(0.55)  # past the tick at 1 s (ticks add up, a little late)
            assert status.connection == "retrying in 1 s (HTTP 429)"
            clock.advance(1.0)
            assert status.connection == "waiting for the model (attempt 2)"
            await wait_text(pilot, "Waited.")
            await wait_idle_agent(pilot)
            assert "retrying" not in status.connection
        server.assert_all_consumed()
        assert _gap(server) >= 2.0  # the transport's own wait, not the app's clock


@pytest.mark.heavy
def test_run_json_shows_the_retry_wait_and_1e9_is_capped_at_the_configured_max(
    home: Home,
) -> None:
    home.settings(retry_after_max=CAP_S)
    with FakeProvider("gemini", api_key=KEY) as server:
        server.script(Status(429, {"retry-after": "1e9"}), final(server.protocol, "Hi."))
        with JsonLines(home.start(server, "hello", "--json")) as lines:
            event = lines.wait_for("retry_wait")
            done = lines.finish()
        server.assert_all_consumed()
        gap = _gap(server)
    assert done.code == 0, done.stderr
    assert event == {"type": "retry_wait", "seconds": CAP_S, "attempt": 2, "why": "HTTP 429"}
    assert gap >= CAP_S  # never early; the 1e9 s asked for was capped: the run ended (code 0)
    assert lines.seen[-1] == {"type": "loop_ended", "outcome": "complete", "message": ""}
    assert types(home.records()) == ["header", "user", "assistant"]


def test_a_huge_retry_after_is_capped_at_60_seconds(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Status(429, {"retry-after": "1e9"}), final(server.protocol, "unused"))
        process = home.start(server, "hello")
        stderr = LineReader(process.stderr)
        try:
            line = stderr.next(15.0)
            if line is not None and line.startswith("session "):  # which session it writes
                line = stderr.next(15.0)
            assert process.poll() is None, "the run gave up instead of waiting"
        finally:
            process.kill()  # it would wait the whole 60 s
            process.wait()
            stderr.rest()
            assert process.stdout is not None and process.stderr is not None
            process.stdout.close()
            process.stderr.close()
        assert len(server.requests) == 1
    assert line == "retrying in 60.0 s (HTTP 429), attempt 2\n"


def test_an_error_body_nested_100000_deep_is_a_clear_error(home: Home) -> None:
    """Reading the error's message out of the body once raised RecursionError out of the
    transport: the run died with a traceback instead of saying what the server answered."""
    deep = b"[" * 100_000 + b"]" * 100_000
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Status(400, body=deep))
        done = home.run(server, "hello")
    assert done.code == 2, done.stderr
    assert "HTTP 400" in done.stderr and "Traceback" not in done.stderr
    assert types(home.records()) == ["header", "user", "truncated"]  # no assistant turn
