"""llama.cpp's overflow error names its window (issue 34, item 6): "the available context size
(2048 tokens)" in the message and ``n_ctx`` beside it. It is read on every endpoint the server
serves, so ``context_overflow`` carries the window and the window becomes the server's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.agent.events import LoopEnded
from tui_agent.context.events import ContextOverflow
from tui_agent.context.overflow import overflow_limit
from tui_agent.transport.errors import describe_http_error

from .agent_helpers import agent_over, of_type
from .fake_provider import Status

BODY = (Path(__file__).parent / "fixtures" / "llamacpp" / "overflow-400.written.json").read_bytes()


def test_the_message_and_the_body_both_name_the_window() -> None:
    line = describe_http_error("llama", 400, BODY, None)
    assert "context size (2048 tokens)" in line and "n_ctx 2048" in line
    assert overflow_limit(line) == 2048
    # Either alone is enough.
    assert overflow_limit("request exceeds the available context size (2048 tokens)") == 2048
    only_field = BODY.replace(b"(2048 tokens)", b"")
    assert overflow_limit(describe_http_error("llama", 400, only_field, None)) == 2048


@pytest.mark.parametrize("protocol", ["openai-chat", "openai-responses", "anthropic"])
async def test_every_endpoint_adopts_the_window_it_names(protocol: str, tmp_path: Path) -> None:
    settings = {"max_retries": 0, "context_window": 32768}
    async with agent_over(protocol, tmp_path, Status(400, body=BODY), settings=settings) as h:
        assert h.agent.context.size == 32768
        events = await h.send("hello")
        h.server.assert_all_consumed()
        (overflow,) = of_type(events, ContextOverflow)
        assert overflow.window == 2048
        assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "truncated"
        assert h.agent.context.size == 2048
        assert h.agent.context.window.source == "error"
