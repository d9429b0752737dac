"""Numbers a server reports are believed only inside a sane range, and compaction never loops.

The hostile round (issue 24): a ``/v1/models`` ``context_length`` of 10^400 or a 4,200-digit
llama.cpp ``n_ctx`` crashed ``run`` and the app with an OverflowError traceback; a window of 1
token made 48 compactions in 28 s. Now a window is a whole number of tokens from 256 to
100,000,000 (anything else is ignored, with a log line), a usage count past 10^9 is no count,
and the loop compacts by itself at most once for each message sent, none at all when even an
empty summary would leave the context past the threshold, saying so either way. Against real
loopback servers: the fake provider's model-information routes, and ``tui-agent run`` as a
subprocess.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui_agent.agent.events import LoopEnded, Notice
from tui_agent.approval import ApprovalMode
from tui_agent.context.discovery import ask_window
from tui_agent.context.events import CompactionStarted, ContextUpdate
from tui_agent.context.overflow import overflow_limit
from tui_agent.context.window import MAX_WINDOW, MIN_WINDOW
from tui_agent.providers.registry import tokens_used

from ..agent_helpers import agent_over, call_ops, of_type
from ..context_helpers import reply, text_reply
from ..fake_provider import FakeProvider, Reply
from ..run_helpers import KEY, MODEL, Home

HUGE = 10**400
LLAMA_DIGITS = int("9" * 4200)

# Where a server says its window, and a value no window has.
BOGUS: dict[str, tuple[str, str, Any]] = {
    "models 10^400": ("openai-chat", "/v1/models", {"data": [{"id": "m", "context_length": HUGE}]}),
    "models 1": ("openai-chat", "/v1/models", {"data": [{"id": "m", "context_length": 1}]}),
    "models 0": ("openai-chat", "/v1/models", {"data": [{"id": "m", "max_model_len": 0}]}),
    "models -5": ("openai-chat", "/v1/models", {"data": [{"id": "m", "context_length": -5}]}),
    "models 255": ("openai-chat", "/v1/models", {"data": [{"id": "m", "context_length": 255}]}),
    "models 10^8+1": (
        "openai-chat",
        "/v1/models",
        {"data": [{"id": "m", "context_length": MAX_WINDOW + 1}]},
    ),
    "models a string": (
        "openai-chat",
        "/v1/models",
        {"data": [{"id": "m", "context_length": "32768"}]},
    ),
    "models a float": ("openai-chat", "/v1/models", {"data": [{"id": "m", "context_length": 3e4}]}),
    "models true": ("openai-chat", "/v1/models", {"data": [{"id": "m", "context_length": True}]}),
    "openrouter top_provider": (
        "openai-chat",
        "/v1/models",
        {"data": [{"id": "m", "top_provider": {"context_length": HUGE}}]},
    ),
    "llama.cpp 4,200 digits": ("openai-chat", "/props", {"n_ctx": LLAMA_DIGITS}),
    "llama.cpp settings 1": (
        "openai-chat",
        "/props",
        {"default_generation_settings": {"n_ctx": 1}},
    ),
    "ollama num_ctx 5,000 digits": (
        "openai-chat",
        "/api/show",
        {"parameters": "num_ctx " + "9" * 5000},
    ),
    "ollama model_info 10^400": (
        "openai-chat",
        "/api/show",
        {"model_info": {"qwen3.context_length": HUGE}},
    ),
    "gemini 10^400": ("gemini", "/v1beta/models/m", {"inputTokenLimit": HUGE}),
}


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize("case", BOGUS)
async def test_a_window_no_model_has_is_ignored_with_a_log_line(case: str) -> None:
    protocol, path, answer = BOGUS[case]
    # On the app's logger itself (not caplog's root handler): an app started earlier in this
    # process, by another test, may have stopped it propagating to the root logger.
    logger = logging.getLogger("tui_agent")
    kept = _Kept()
    logger.addHandler(kept)
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        async with httpx.AsyncClient() as client:
            with FakeProvider(protocol) as server:
                server.info[path] = answer
                found = await ask_window(client, protocol, server.base_url, "m", "k")
    finally:
        logger.removeHandler(kept)
        logger.setLevel(level)
    assert found is None
    lines = [record.getMessage() for record in kept.records]
    (line,) = [each for each in lines if "ignored the context window" in each]
    assert f"from {MIN_WINDOW} to {MAX_WINDOW}" in line
    assert len(line) < 300  # never the whole 4,200-digit number


@pytest.mark.parametrize("size", [MIN_WINDOW, 131_072, MAX_WINDOW])
async def test_a_window_inside_the_range_is_believed(size: int) -> None:
    async with httpx.AsyncClient() as client:
        with FakeProvider("openai-chat") as server:
            server.info["/v1/models"] = {"data": [{"id": "m", "context_length": size}]}
            assert await ask_window(client, "openai-chat", server.base_url, "m", "k") == size


def test_an_overflow_error_naming_no_window_names_none() -> None:
    for number in ("1", "0", "9" * 5000, str(MAX_WINDOW + 1)):
        assert overflow_limit(f"This model's maximum context length is {number} tokens.") is None
    assert overflow_limit("This model's maximum context length is 4,096 tokens.") == 4096


def test_a_usage_count_past_any_window_is_no_count() -> None:
    assert tokens_used("openai-chat", {"total_tokens": HUGE}) == 0
    assert tokens_used("anthropic", {"input_tokens": HUGE, "output_tokens": 5}) == 5
    assert tokens_used("openai-chat", {"total_tokens": 1234}) == 1234


def _steps(count: int) -> list[Reply]:
    return [Reply(call_ops((f"c{i}", "read_file", {"path": "notes.txt"}))) for i in range(count)]


@pytest.mark.parametrize(
    ("path", "answer"),
    [
        ("/v1/models", {"data": [{"id": MODEL, "context_length": HUGE}]}),
        ("/props", {"n_ctx": LLAMA_DIGITS}),
        ("/v1/models", {"data": [{"id": MODEL, "context_length": 1}]}),
    ],
    ids=["models 10^400", "llama.cpp 4,200 digits", "models 1"],
)
@pytest.mark.heavy
def test_run_ignores_a_window_no_model_has_and_finishes(
    path: str, answer: Any, tmp_path: Path
) -> None:
    """``run`` over a server that reports the window: several steps, so the answer is adopted
    (or not) before the loop checks the threshold again. It used to die with a traceback."""
    home = Home(tmp_path)
    (home.workspace / "notes.txt").write_text("hello\n")
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.info[path] = answer
        server.script(*_steps(6), Reply(call_ops()), *[Reply(call_ops())] * 4)
        done = home.run(server, "read it", "--json", approve="all")
        summary_requests = [r for r in server.requests if not r.json.get("tools")]
    assert done.code == 0, done.stderr
    assert "Traceback" not in done.stderr and "OverflowError" not in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    windows = {e["window"] for e in events if e["type"] == "context"}
    assert windows == {None}, windows
    assert [e["outcome"] for e in events if e["type"] == "loop_ended"] == ["complete"]
    assert summary_requests == []  # no compaction at all
    (log,) = list(home.root.rglob("tui-agent.log"))
    assert "ignored the context window GET /models (context_length)" in log.read_text() or (
        "ignored the context window llama.cpp's GET /props (n_ctx)" in log.read_text()
    )


LONG = "The file says ship on friday, and a great deal more besides. " * 30  # ~450 tokens


def _long_steps(protocol: str, count: int, total: int) -> list[Reply]:
    """Turns of long text and a read_file call, each counting ``total`` tokens; one also
    serves as a summary should a compaction ask (it has text)."""
    return [
        reply(protocol, [("text", LONG), *call_ops((f"c{i}", "read_file", {"path": "n"}))], total)
        for i in range(count)
    ]


SMALL = {"context_window": 1000, "compact_at": 0.85, "max_retries": 0}
AUTO = {"mode": ApprovalMode.AUTO_ALL, "require_tools": False}


async def test_no_compaction_when_even_an_empty_summary_would_leave_too_much(
    tmp_path: Path,
) -> None:
    """Every turn counts 5,000 tokens in a 1,000-token window: no compaction could help, so
    none runs (each step used to compact again), and the person is told why, once."""
    protocol = "openai-chat"
    steps = [*_long_steps(protocol, 8, 5000), text_reply(protocol, "done", 5000)]
    async with agent_over(protocol, tmp_path, *steps, settings=SMALL, **AUTO) as h:
        (h.workspace / "n").write_text("ship on friday\n")
        events = await h.send("go")
        summary_requests = [r for r in h.server.requests if not r.json.get("tools")]
    assert of_type(events, CompactionStarted) == []
    assert summary_requests == []
    told = [n.text for n in of_type(events, Notice) if "compact" in n.text]
    assert len(told) == 1 and "no automatic compaction" in told[0], told
    assert "could not help" in told[0]
    assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
    assert of_type(events, ContextUpdate)[-1].window == 1000


def _growing_steps(count: int) -> list[Reply]:
    """Turns of long text and a read_file call that report no usage: the context is the
    estimate of what was sent, and grows by some 500 tokens a step."""
    return [Reply(call_ops((f"c{i}", "read_file", {"path": "n"}), text=LONG)) for i in range(count)]


async def test_at_most_one_automatic_compaction_for_each_message(tmp_path: Path) -> None:
    """The context grows past 85% of a 4,000-token window every few steps: the first time in a
    message it is compacted, the later times in the same message it is not (each used to be),
    and the person is told once; the next message compacts again."""
    protocol = "openai-chat"
    settings = {**SMALL, "context_window": 4000}
    first = [*_growing_steps(16), Reply([("text", "done")])]
    second = [*_growing_steps(16), Reply([("text", "done again")])]
    async with agent_over(protocol, tmp_path, *first, *second, settings=settings, **AUTO) as h:
        (h.workspace / "n").write_text("ship on friday\n")
        events = [await h.send("go"), await h.send("go on")]
    for each in events:
        assert len(of_type(each, CompactionStarted)) == 1, [type(e).__name__ for e in each]
        told = [n.text for n in of_type(each, Notice) if "compact" in n.text]
        assert len(told) == 1, told
        assert "at most once" in told[0] or "no more automatic compaction" in told[0]
        assert isinstance(each[-1], LoopEnded) and each[-1].outcome == "complete"
