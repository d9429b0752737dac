"""The profile's ``max_tokens`` is the output budget, and every protocol sends it in its own
field: a profile with ``max_tokens = 40`` once sent no limit on Chat Completions or Responses,
and a model streamed a call's arguments for five minutes."""

from __future__ import annotations

from typing import Any

import pytest

from tui_agent.conversation import UserMessage
from tui_agent.providers import RequestSettings, request_builder

from . import wire
from .fake_provider import FakeProvider
from .run_helpers import KEY, Home, final


def budget(protocol: str, body: dict[str, Any]) -> Any:
    """The output budget a request body asks for, read where each API reads it."""
    if protocol == "openai-chat":
        return body.get("max_tokens", body.get("max_completion_tokens"))
    if protocol in ("openai-responses",):
        return body.get("max_output_tokens")
    if protocol == "anthropic":
        return body.get("max_tokens")
    if protocol == "gemini-interactions":
        return body.get("generation_config", {}).get("max_output_tokens")
    return body.get("generationConfig", {}).get("maxOutputTokens")


@pytest.mark.parametrize("protocol", list(wire.BUILDERS))
def test_the_profile_budget_reaches_every_protocol(protocol: str, home: Home) -> None:
    home.settings(max_tokens=40)
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(final(protocol, "Short."))
        done = home.run(server, "tell me a story", approve="all")
        server.assert_all_consumed()
        (request,) = server.requests
    assert done.code == 0, done.stderr
    assert budget(protocol, request.json) == 40
    if protocol == "openai-chat":  # another server than OpenAI's: the name every server reads
        assert "max_completion_tokens" not in request.json


def _body(protocol: str, base_url: str, **options: Any) -> dict[str, Any]:
    settings = RequestSettings(model="m", base_url=base_url, max_tokens=300, options=options)
    return request_builder(protocol)([UserMessage("hi")], [], settings).body


def test_openai_itself_gets_max_completion_tokens() -> None:
    body = _body("openai-chat", "https://api.openai.com/v1")
    assert body["max_completion_tokens"] == 300 and "max_tokens" not in body
    body = _body("openai-chat", "http://127.0.0.1:8080/v1")
    assert body["max_tokens"] == 300 and "max_completion_tokens" not in body


@pytest.mark.parametrize(
    ("protocol", "options", "expected"),
    [
        # A profile's own field wins, and the two names are never both sent.
        ("openai-chat", {"max_completion_tokens": 77}, {"max_completion_tokens": 77}),
        ("openai-responses", {"max_output_tokens": 77}, {"max_output_tokens": 77}),
        # Other generation settings of the profile are kept beside the budget.
        (
            "gemini",
            {"generationConfig": {"temperature": 0.5}},
            {"generationConfig": {"maxOutputTokens": 300, "temperature": 0.5}},
        ),
        (
            "gemini-interactions",
            {"generation_config": {"temperature": 0.5}},
            {"generation_config": {"max_output_tokens": 300, "temperature": 0.5}},
        ),
    ],
)
def test_profile_options_and_the_budget(
    protocol: str, options: dict[str, Any], expected: dict[str, Any]
) -> None:
    body = _body(protocol, "http://127.0.0.1:8080", **options)
    for key, value in expected.items():
        assert body[key] == value
    assert not ("max_tokens" in body and "max_completion_tokens" in body)
