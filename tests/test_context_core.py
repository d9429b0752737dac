"""The pure parts of the context window: the status line, the planner's cuts, overflow errors
of every provider, fitting tool output, and asking a server for its window."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tui_agent.context.discovery import ask_window
from tui_agent.context.fit import fit_output
from tui_agent.context.overflow import is_overflow, overflow_limit
from tui_agent.context.planner import plan_compaction
from tui_agent.context.summary import compacted_view
from tui_agent.context.window import builtin_window, context_line, over_threshold
from tui_agent.conversation import AssistantMessage, ToolResultMessage, UserMessage
from tui_agent.stream.turn import ToolCall

from .context_helpers import LLAMA_CPP_OVERFLOW, OVERFLOW_BODIES, VLLM_OVERFLOW
from .fake_provider import FakeProvider


def test_status_line() -> None:
    assert context_line(12_300, 16_000) == "ctx 12.3k/16k 77%"
    assert context_line(950, None) == "ctx 950"
    assert context_line(0, 200_000) == "ctx 0/200k 0%"
    assert over_threshold(13_700, 16_000, 0.85) and not over_threshold(13_500, 16_000, 0.85)
    assert not over_threshold(15_999, 16_000, 0) and not over_threshold(10**6, None, 0.85)


def test_builtin_table() -> None:
    assert builtin_window("claude-sonnet-4-5") == 200_000
    assert builtin_window("openai/gpt-4o-mini") == 128_000
    assert builtin_window("gpt-4") == 8_192 and builtin_window("gpt-4.1") == 1_047_576
    assert builtin_window("my-own-model") is None


def _call(call_id: str) -> AssistantMessage:
    return AssistantMessage("openai-chat", "", (ToolCall(call_id, "read_file", "{}"),))


def test_planner_never_separates_a_call_from_its_result() -> None:
    big = "x" * 7000  # ~2000 tokens
    messages = [
        UserMessage("one"),
        _call("a"),
        ToolResultMessage("a", "read_file", big),
        AssistantMessage("openai-chat", "answer one"),
        UserMessage("two"),
        _call("b"),
        ToolResultMessage("b", "read_file", big),
    ]
    for keep in (0, 10, 100, 2100, 10_000):
        plan = plan_compaction(messages, keep)
        assert plan is not None
        kept = messages[plan.cut :]
        assert not isinstance(kept[0], ToolResultMessage)
        ids = {m.call_id for m in kept if isinstance(m, ToolResultMessage)}
        calls = {c.id for m in kept if isinstance(m, AssistantMessage) for c in m.tool_calls}
        assert ids == calls
    # Nothing fits: the least is kept, the newest call with its result.
    assert plan_compaction(messages, 0) == plan_compaction(messages, 10)
    assert plan_compaction(messages, 0).cut == 5  # type: ignore[union-attr]


def test_planner_keeps_the_question_and_has_nothing_to_do_alone() -> None:
    assert plan_compaction([UserMessage("only")], 0) is None
    messages = [UserMessage("q1"), AssistantMessage("openai-chat", "a1"), UserMessage("q2")]
    plan = plan_compaction(messages, 0)
    assert plan is not None and plan.cut == 2
    done = [UserMessage("q1"), AssistantMessage("openai-chat", "a1")]
    assert plan_compaction(done, 0).cut == 2  # type: ignore[union-attr]


def test_the_view_keeps_roles_alternating() -> None:
    (first, second) = compacted_view("S", [_call("a"), ToolResultMessage("a", "read_file", "r")])[
        :2
    ]
    assert isinstance(first, UserMessage) and "S" in first.text
    assert isinstance(second, AssistantMessage)
    (merged,) = compacted_view("S", [UserMessage("next")])
    assert isinstance(merged, UserMessage) and merged.text.endswith("next")


@pytest.mark.parametrize(
    "body", [*OVERFLOW_BODIES.values(), LLAMA_CPP_OVERFLOW, VLLM_OVERFLOW], ids=str
)
def test_every_provider_overflow_is_recognised(body: dict[str, Any]) -> None:
    error = body.get("error", body)
    message = error["message"]
    assert is_overflow(f"provider: HTTP 400: {message}")


def test_limits_named_and_lookalikes_refused() -> None:
    assert overflow_limit(OVERFLOW_BODIES["openai-chat"]["error"]["message"]) == 1000
    assert overflow_limit(OVERFLOW_BODIES["anthropic"]["error"]["message"]) == 1000
    assert overflow_limit(OVERFLOW_BODIES["gemini"]["error"]["message"]) == 1000
    assert overflow_limit(VLLM_OVERFLOW["message"]) == 1000
    for other in (
        "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000",
        "overloaded",
        "invalid x-api-key",
        None,
    ):
        assert not is_overflow(other)


def test_fit_output_keeps_start_and_end() -> None:
    text = "".join(f"line {i}\n" for i in range(5000))
    out = fit_output(text, 300)
    assert out.startswith("line 0\n") and out.rstrip().endswith("line 4999")
    assert "cut to fit the model's context window" in out and len(out) < 1100
    assert fit_output("short", 300) == "short"


async def test_the_server_is_asked_for_its_window() -> None:
    cases = [
        ("openai-chat", "/v1/models", {"data": [{"id": "m", "context_length": 32768}]}, 32768),
        ("openai-chat", "/props", {"default_generation_settings": {"n_ctx": 16384}}, 16384),
        (
            "openai-chat",
            "/api/show",
            {"parameters": "num_ctx 8192", "model_info": {"qwen3.context_length": 40960}},
            8192,
        ),
        ("gemini", "/v1beta/models/m", {"inputTokenLimit": 1048576}, 1048576),
        ("anthropic", "/v1/models/m", {"id": "m"}, None),
    ]
    async with httpx.AsyncClient() as client:
        for protocol, path, answer, expected in cases:
            with FakeProvider(protocol) as server:
                server.info[path] = answer
                found = await ask_window(client, protocol, server.base_url, "m", "k")
                assert found == expected, (path, json.dumps(answer))
                assert server.requests == []
