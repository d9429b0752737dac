"""Interactions API requests. Stateless by default: the history as steps (user input, the
model's own steps with their signatures, function calls, function results). A stateful profile
sends ``previous_interaction_id`` and only the new steps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...conversation import AssistantMessage, ImagePart, Message, ToolResultMessage, UserMessage
from ..request import (
    ProviderRequest,
    RequestSettings,
    ToolSchema,
    arguments_object,
    rebuilt_from_stream,
    sse_payloads,
    stateful_tail,
)
from ..server_tools import server_tool_entries


def model_steps(message: AssistantMessage) -> list[dict[str, Any]]:
    """The model's steps, rebuilt from its stream when it came from the Interactions API."""
    if message.protocol == "gemini-interactions" and message.raw:
        out = rebuilt_from_stream(_steps_from_stream, message)
        if out:
            return out
    fallback: list[dict[str, Any]] = []
    if message.text:
        fallback.append(
            {"type": "model_output", "content": [{"type": "text", "text": message.text}]}
        )
    for call in message.tool_calls:
        fallback.append(
            {
                "type": "function_call",
                "id": call.id,
                "name": call.name,
                "arguments": arguments_object(call.arguments),
            }
        )
    return fallback


def _steps_from_stream(message: AssistantMessage) -> list[dict[str, Any]]:
    """The steps as the stream built them (raises on a shape it cannot read)."""
    calls = {call.id: call for call in message.tool_calls}
    steps: dict[int, dict[str, Any]] = {}
    for payload in sse_payloads(message.raw):
        kind, index = payload.get("event_type"), payload.get("index")
        if not isinstance(index, int):
            continue
        if kind == "step.start" and isinstance(payload.get("step"), dict):
            steps[index] = dict(payload["step"])
        elif kind == "step.delta" and index in steps and isinstance(payload.get("delta"), dict):
            _apply_delta(steps[index], payload["delta"])
    out = []
    for index in sorted(steps):
        step = steps[index]
        call_id = step.get("id")
        if step.get("type") == "function_call" and isinstance(call_id, str) and call_id in calls:
            step["arguments"] = arguments_object(calls[call_id].arguments)
        out.append(step)
    return out


def _apply_delta(step: dict[str, Any], delta: dict[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text":
        content = step.setdefault("content", [])
        if content and content[-1].get("type") == "text":
            content[-1]["text"] += str(delta.get("text", ""))
        else:
            content.append({"type": "text", "text": str(delta.get("text", ""))})
    elif kind == "thought_signature":
        step["signature"] = str(delta.get("signature", ""))
    elif kind == "thought_summary":
        step.setdefault("summary", []).append(delta.get("content", delta.get("text")))


def image_content(image: ImagePart) -> dict[str, Any]:
    return {"type": "image", "data": image.base64(), "mime_type": image.media_type}


def _content(part: str | ImagePart) -> dict[str, Any]:
    return image_content(part) if isinstance(part, ImagePart) else {"type": "text", "text": part}


def _result(message: ToolResultMessage) -> str | list[dict[str, Any]]:
    """The result's text, or its content: the text, then the tool's images."""
    if not message.images:
        return message.output
    return [_content(message.output), *(image_content(image) for image in message.images)]


def _steps(message: Message) -> list[dict[str, Any]]:
    if isinstance(message, UserMessage):
        content = [_content(part) for part in message.parts()]
        return [{"type": "user_input", "content": content}]
    if isinstance(message, AssistantMessage):
        return model_steps(message)
    assert isinstance(message, ToolResultMessage)
    return [
        {
            "type": "function_result",
            "call_id": message.call_id,
            "name": message.name,
            "result": _result(message),
            "is_error": message.is_error,
        }
    ]


def build_request(
    messages: Sequence[Message], tools: Sequence[ToolSchema], settings: RequestSettings
) -> ProviderRequest:
    body: dict[str, Any] = {"model": settings.model, "stream": True}
    history = list(messages)
    if settings.stateful:
        previous_id, history = stateful_tail(messages, "gemini-interactions")
        if previous_id is not None:
            body["previous_interaction_id"] = previous_id
    else:
        body["store"] = False
    body["input"] = [step for message in history for step in _steps(message)]
    if settings.system:
        body["system_instruction"] = settings.system
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
            }
            for t in tools
        ]
    if extra := server_tool_entries("gemini-interactions", settings.server_tools):
        body["tools"] = [*body.get("tools", []), *extra]  # run at the provider
    body.update(settings.options)
    config = body.get("generation_config")
    body["generation_config"] = {
        "max_output_tokens": settings.max_tokens,
        **({"thinking_level": settings.effort} if settings.effort else {}),
        **(config if isinstance(config, dict) else {}),
    }
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if settings.api_key:
        headers["x-goog-api-key"] = settings.api_key
    url = f"{settings.base_url}/v1beta/interactions"
    return ProviderRequest(url, headers, body, output_limit=settings.max_tokens)
