"""A 200 answer that is not an event stream (an HTML page, a JSON error) is one clear error."""

from __future__ import annotations

import httpx
import pytest

from tui_agent.conversation import UserMessage
from tui_agent.providers import RequestSettings, request_builder
from tui_agent.transport import StreamLimits, stream_turn

from .fake_provider import FakeProvider, Reply


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("application/json", b'{"error": {"message": "model overloaded"}}', "model overloaded"),
        ("text/html; charset=utf-8", b"<html><body>Gateway</body></html>", "text/html"),
    ],
)
async def test_a_200_that_is_not_an_event_stream(
    content_type: str, body: bytes, expected: str
) -> None:
    with FakeProvider("openai-chat", require_tools=False) as server:
        server.script(Reply(body, headers={"content-type": content_type}))
        settings = RequestSettings(model="m", base_url=server.base_url)
        request = request_builder("openai-chat")([UserMessage("hi")], [], settings)
        async with httpx.AsyncClient() as client:
            result = await stream_turn(
                client,
                request,
                "openai-chat",
                "openai-chat",
                limits=StreamLimits(),
                on_progress=lambda _: None,
                on_retry=lambda _: None,
                record=lambda *_: None,
            )
    d = result.to_dict()
    assert (d["outcome"], d["reason"]) == ("truncated", "error")
    assert expected in d["error"] and "not an event stream" in d["error"]
