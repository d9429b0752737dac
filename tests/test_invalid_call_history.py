"""One call with arguments that are not JSON must not end the conversation. llama.cpp re-parses
the arguments of earlier calls and answers HTTP 500 "Failed to parse tool call arguments as JSON"
for a history that carries one (tests/fixtures/llamacpp/SOURCES.md): such a call goes back with
``{}`` as its arguments, what the model sent stays in the tool result's error and the session
record, and a 500 that says the request cannot be parsed is not retried."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui_agent.conversation import AssistantMessage, ToolResultMessage, UserMessage
from tui_agent.providers import RequestSettings, ToolSchema, request_builder
from tui_agent.stream.sse import SSEFramer
from tui_agent.stream.turn import ToolCall

from . import wire
from .fake_provider import ExpectToolResults, FakeProvider, Reply, Status
from .run_helpers import KEY, Home, final, types

LLAMACPP = Path(__file__).parent / "fixtures" / "llamacpp"
CUT = '{"path": "release.txt", "content": "'  # the recorded cut call's arguments
STRING_PROTOCOLS = ["openai-chat", "openai-responses", "anthropic", "gemini-interactions"]
TOOL = ToolSchema("write_file", "Write a file.", {"type": "object", "properties": {}})


def sent_arguments(protocol: str, body: dict[str, Any]) -> list[Any]:
    """Every earlier call's arguments in a request body, parsed as the server would parse them."""
    found: list[Any] = []
    if protocol == "openai-chat":
        for message in body["messages"]:
            for call in message.get("tool_calls") or []:
                found.append(json.loads(call["function"]["arguments"]))
    elif protocol == "openai-responses":
        found += [
            json.loads(i["arguments"]) for i in body["input"] if i.get("type") == "function_call"
        ]
    elif protocol == "anthropic":
        for message in body["messages"]:
            if isinstance(message["content"], list):
                found += [b["input"] for b in message["content"] if b["type"] == "tool_use"]
    elif protocol == "gemini-interactions":
        found += [s["arguments"] for s in body["input"] if s["type"] == "function_call"]
    else:
        for content in body["contents"]:
            found += [p["functionCall"]["args"] for p in content["parts"] if "functionCall" in p]
    return found


def _raw(body: bytes) -> tuple[tuple[str, str], ...]:
    framer = SSEFramer()
    return tuple((e.event, e.data) for e in framer.feed(body) + framer.close())


def test_the_recorded_poisoned_request_now_carries_parseable_arguments() -> None:
    # The call llama.cpp cut and reported completed, as its stream recorded it: the request
    # rebuilt from those events is the one the server refused with HTTP 500.
    body = (LLAMACPP / "responses-cut-call-status-completed.sse").read_bytes()
    call = ToolCall("call_239boVtJ6f4Y5KSLJN0UwJfBT9U5GrKI", "write_file", CUT)
    history = [
        UserMessage("Create the file release.txt"),
        AssistantMessage("openai-responses", "", (call,), raw=_raw(body)),
        ToolResultMessage(call.id, "write_file", "invalid arguments for write_file", True),
    ]
    settings = RequestSettings(model="m", base_url="http://127.0.0.1:1/v1")
    request = request_builder("openai-responses")(history, [TOOL], settings)
    (item,) = [i for i in request.body["input"] if i.get("type") == "function_call"]
    assert item["arguments"] == "{}"
    assert item["call_id"] == call.id and item["name"] == "write_file"
    refused = json.loads(
        (LLAMACPP / "responses-500-invalid-arguments-in-history.request.json").read_text()
    )
    (old,) = [i for i in refused["input"] if i.get("type") == "function_call"]
    assert old["arguments"] == CUT  # what used to be sent, and what the server cannot parse


@pytest.mark.parametrize("made_by", list(wire.BUILDERS))
@pytest.mark.parametrize("protocol", list(wire.BUILDERS))
def test_every_builder_sends_an_invalid_call_as_parseable_arguments(
    protocol: str, made_by: str
) -> None:
    # The call may come from this protocol or another (a profile switched mid-session).
    call = ToolCall("call_W", "write_file", CUT)
    history = [
        UserMessage("write it"),
        AssistantMessage(made_by, "", (call,)),
        ToolResultMessage("call_W", "write_file", "invalid arguments", True),
        UserMessage("try again"),
    ]
    settings = RequestSettings(model="m", base_url="http://127.0.0.1:1")
    request = request_builder(protocol)(history, [TOOL], settings)
    assert sent_arguments(protocol, json.loads(request.content())) == [{}]


def _expect_parseable(protocol: str) -> Any:
    def check(body: dict[str, Any]) -> None:
        assert sent_arguments(protocol, body) == [{}]

    return check


def _invalid_call() -> list[wire.Op]:
    return [("call", 0, "call_W", "write_file"), ("args", 0, CUT), ("close", 0)]


@pytest.mark.parametrize("protocol", STRING_PROTOCOLS)
def test_a_conversation_with_an_invalid_call_goes_on_and_resumes(protocol: str, home: Home) -> None:
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(_invalid_call()),
            final(
                protocol,
                "That call was cut.",
                [
                    ExpectToolResults({"call_W": f"the arguments sent were: {CUT}"}),
                    _expect_parseable(protocol),
                ],
            ),
        )
        done = home.run(server, "create release.txt", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert not (home.workspace / "release.txt").exists()
    records = home.records()
    kinds = types(records)
    assert kinds[:3] == ["header", "user", "assistant"] and kinds[-1] == "assistant", kinds
    calls = records[2]["tool_calls"]
    assert [c["arguments"] for c in calls] == [CUT], "the record keeps what was sent"

    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(final(protocol, "Going on.", _expect_parseable(protocol)))
        session = home.sessions()[0].stem
        done = home.run(server, "go on", "--session", session, approve="all")
        assert done.code == 0, done.stderr
        server.assert_all_consumed()
    assert "Going on." in done.stdout


def test_a_500_saying_the_request_cannot_be_parsed_is_not_retried(home: Home) -> None:
    refusal = (LLAMACPP / "responses-500-invalid-arguments-in-history.response.json").read_bytes()
    with FakeProvider("openai-responses", api_key=KEY) as server:
        server.script(Status(500, {"content-type": "application/json"}, refusal))
        done = home.run(server, "hello", approve="all")
        assert len(server.requests) == 1, "the same request would fail the same way"
    assert done.code == 2, done.stderr
    assert "Failed to parse tool call arguments as JSON" in done.stderr
    assert "not retried" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_500_that_does_not_say_so_is_still_retried(home: Home) -> None:
    with FakeProvider("openai-responses", api_key=KEY) as server:
        server.script(Status(500), final("openai-responses", "Hello."))
        done = home.run(server, "hello", approve="all")
        server.assert_all_consumed()
        assert len(server.requests) == 2
    assert done.code == 0, done.stderr
