"""Each protocol sends an attached image and a tool's image in its own shape, checked against the
official SDKs' request types where they are installed (openai, anthropic) and against the shapes
of the Gemini docs otherwise. Nothing but a reference goes to the session file."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam

from tui_agent.conversation import (
    AssistantMessage,
    Attachment,
    Message,
    ToolResultMessage,
    UserMessage,
)
from tui_agent.images import prepare_image
from tui_agent.providers import RequestSettings, request_builder
from tui_agent.stream.turn import ToolCall

from .image_helpers import png
from .sdk_request_types import conforms

SHOT = prepare_image(png(8, 6), "shot.png")
CHART = prepare_image(png(5, 5, (0, 0, 255)), "chart.png")
B64 = SHOT.base64()
CALLS = (ToolCall("call_1", "read_file", '{"path":"chart.png"}'), ToolCall("call_2", "x", "{}"))


def _history(protocol: str) -> list[Message]:
    return [
        UserMessage("what is wrong here?", (Attachment("shot.png", "", image=SHOT),)),
        AssistantMessage(protocol, "", CALLS),
        ToolResultMessage("call_1", "read_file", "[read_file: chart.png]", images=(CHART,)),
        ToolResultMessage("call_2", "x", "done"),
    ]


def _body(protocol: str, history: list[Message] | None = None) -> dict[str, Any]:
    settings = RequestSettings(model="m", base_url="http://127.0.0.1:9/v1")
    builder = request_builder(protocol)
    return builder(history or _history(protocol), [], settings).body


def _conform(items: list[Any], tp: Any) -> None:
    for item in items:
        assert conforms(item, tp) is None, conforms(item, tp)


def test_chat_completions_sends_image_url_data_urls() -> None:
    body = _body("openai-chat")
    messages = body["messages"]
    _conform(messages, ChatCompletionMessageParam)
    assert messages[0]["content"][2] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{B64}"},
    }
    # Tool messages carry only text: the images follow the turn's results in a user message.
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "user"]
    assert messages[2]["content"] == "[read_file: chart.png]"
    follow = messages[4]["content"]
    assert "1 image returned by read_file (call call_1)" in follow[0]["text"]
    assert follow[1]["image_url"]["url"] == CHART.data_url()


def test_responses_sends_input_image_and_an_image_output() -> None:
    items = _body("openai-responses")["input"]
    _conform(items, ResponseInputItemParam)
    assert items[0]["content"][2] == {
        "type": "input_image",
        "image_url": f"data:image/png;base64,{B64}",
        "detail": "auto",
    }
    output = next(i for i in items if i.get("call_id") == "call_1" and "output" in i)["output"]
    assert output == [
        {"type": "input_text", "text": "[read_file: chart.png]"},
        {"type": "input_image", "image_url": CHART.data_url(), "detail": "auto"},
    ]


def test_anthropic_sends_base64_image_blocks_in_the_tool_result() -> None:
    messages = _body("anthropic")["messages"]
    _conform(messages, MessageParam)
    assert messages[0]["content"][2] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": B64},
    }
    result = messages[2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "call_1"
    assert result["content"][1]["source"]["data"] == CHART.base64()
    assert result["content"][0] == {"type": "text", "text": "[read_file: chart.png]"}


def test_anthropic_never_sends_an_empty_text_block() -> None:
    history = _history("anthropic")
    history[2] = ToolResultMessage("call_1", "read_file", "", images=(CHART,))
    result = _body("anthropic", history)["messages"][2]["content"][0]
    assert [block["type"] for block in result["content"]] == ["image"]
    _conform(_body("anthropic", history)["messages"], MessageParam)


def test_gemini_sends_inline_data_after_the_function_responses() -> None:
    contents = _body("gemini")["contents"]
    assert contents[0]["parts"][2] == {"inlineData": {"mimeType": "image/png", "data": B64}}
    parts = contents[2]["parts"]
    assert [next(iter(part)) for part in parts] == [
        "functionResponse",
        "functionResponse",
        "inlineData",
    ]
    assert parts[2]["inlineData"]["data"] == CHART.base64()


def test_interactions_sends_image_content_and_a_content_result() -> None:
    steps = _body("gemini-interactions")["input"]
    assert steps[0]["content"][2] == {"type": "image", "data": B64, "mime_type": "image/png"}
    result = next(s for s in steps if s["type"] == "function_result" and s["call_id"] == "call_1")
    assert result["result"] == [
        {"type": "text", "text": "[read_file: chart.png]"},
        {"type": "image", "data": CHART.base64(), "mime_type": "image/png"},
    ]
    other = next(s for s in steps if s["type"] == "function_result" and s["call_id"] == "call_2")
    assert other["result"] == "done"


@pytest.mark.parametrize("protocol", ["openai-chat", "openai-responses", "anthropic", "gemini"])
def test_a_message_without_images_is_sent_as_before(protocol: str) -> None:
    history: list[Message] = [UserMessage("hi", (Attachment("a.txt", "text"),))]
    body = _body(protocol, history)
    assert "base64" not in str(body)


def test_the_sdk_checker_catches_a_wrong_shape() -> None:
    wrong = {"role": "user", "content": [{"type": "image_url", "image_url": "data:..."}]}
    assert conforms(wrong, ChatCompletionMessageParam) is not None
    wrong_block = {"role": "user", "content": [{"type": "image", "source": {"data": "x"}}]}
    assert conforms(wrong_block, MessageParam) is not None
    no_detail = {"role": "user", "content": [{"type": "input_image", "image_url": "data:..."}]}
    assert "$.content[0]" in (conforms(no_detail, ResponseInputItemParam) or "")
