"""Responses API requests. Stateless by default: the model's own output items go back as input
(reasoning items with their encrypted content byte-exact), results as function_call_output
under ``call_id``. A stateful profile sends ``previous_response_id`` and only what is new."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...conversation import AssistantMessage, ImagePart, Message, ToolResultMessage, UserMessage
from ..request import (
    ProviderRequest,
    RequestSettings,
    ToolSchema,
    rebuilt_from_stream,
    sse_payloads,
    stateful_tail,
    wire_arguments,
)
from ..server_tools import server_tool_entries

_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def output_items(message: AssistantMessage) -> list[dict[str, Any]]:
    """The output items of a recorded response, as the API wants them back as input."""
    if message.protocol == "openai-responses" and message.raw:
        items = rebuilt_from_stream(_items_from_stream, message)
        if items:
            return [_parseable(item) for item in items]
    items = []
    if message.text:
        items.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": message.text}],
            }
        )
    for call in message.tool_calls:
        items.append(
            {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": wire_arguments(call.arguments),
            }
        )
    return items


def _parseable(item: dict[str, Any]) -> dict[str, Any]:
    """A function call item whose arguments never parsed goes back with ``{}`` instead."""
    arguments = item.get("arguments")
    if item.get("type") != "function_call" or not isinstance(arguments, str):
        return item
    sent = wire_arguments(arguments)
    return item if sent is arguments else {**item, "arguments": sent}


def _items_from_stream(message: AssistantMessage) -> list[dict[str, Any]]:
    """The output items as the stream reported them (raises on a shape it cannot read)."""
    done: dict[int, dict[str, Any]] = {}
    final: list[dict[str, Any]] = []
    for payload in sse_payloads(message.raw):
        kind = payload.get("type")
        item = payload.get("item")
        if kind == "response.output_item.done" and isinstance(item, dict):
            index = payload.get("output_index")
            done[index if isinstance(index, int) else len(done)] = item
        elif kind in _TERMINAL:
            response = payload.get("response")
            output = response.get("output") if isinstance(response, dict) else None
            if isinstance(output, list) and output:
                final = [i for i in output if isinstance(i, dict)]
    return final or [done[k] for k in sorted(done)]


def input_image(image: ImagePart) -> dict[str, Any]:
    return {"type": "input_image", "image_url": image.data_url(), "detail": "auto"}


def _content(part: str | ImagePart) -> dict[str, Any]:
    return (
        input_image(part) if isinstance(part, ImagePart) else {"type": "input_text", "text": part}
    )


def _output(message: ToolResultMessage) -> str | list[dict[str, Any]]:
    """The result's text, or its text and the tool's images as input content."""
    if not message.images:
        return message.output
    return [_content(message.output), *(input_image(image) for image in message.images)]


def _input_item(message: Message) -> list[dict[str, Any]]:
    if isinstance(message, UserMessage):
        if message.attachments or message.notes:
            return [{"role": "user", "content": [_content(part) for part in message.parts()]}]
        return [{"role": "user", "content": message.text}]
    if isinstance(message, AssistantMessage):
        return output_items(message)
    return [
        {"type": "function_call_output", "call_id": message.call_id, "output": _output(message)}
    ]


def build_request(
    messages: Sequence[Message], tools: Sequence[ToolSchema], settings: RequestSettings
) -> ProviderRequest:
    body: dict[str, Any] = {
        "model": settings.model,
        "stream": True,
        "max_output_tokens": settings.max_tokens,
    }
    history = list(messages)
    if settings.stateful:
        previous_id, history = stateful_tail(messages, "openai-responses")
        if previous_id is not None:
            body["previous_response_id"] = previous_id
    body["input"] = [item for message in history for item in _input_item(message)]
    if settings.system:
        body["instructions"] = settings.system
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in tools
        ]
    if extra := server_tool_entries("openai-responses", settings.server_tools):
        body["tools"] = [*body.get("tools", []), *extra]  # run at the provider
    if settings.effort:
        body["reasoning"] = {"effort": settings.effort}
    body.update(settings.options)
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if settings.api_key:
        headers["authorization"] = f"Bearer {settings.api_key}"
    url = f"{settings.base_url}/responses"
    return ProviderRequest(url, headers, body, output_limit=settings.max_tokens)
