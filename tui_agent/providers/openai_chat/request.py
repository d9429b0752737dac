"""Chat Completions requests: the whole conversation as messages, tool results as role "tool"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...conversation import AssistantMessage, ImagePart, Message, ToolResultMessage, UserMessage
from ..request import ProviderRequest, RequestSettings, ToolSchema, wire_arguments

# OpenAI's own API takes the output budget as max_completion_tokens (max_tokens is deprecated
# there and refused by its reasoning models); the servers that speak the protocol (llama.cpp,
# vLLM, Ollama, LM Studio...) all read max_tokens, and not all of them the newer name.
_OFFICIAL_HOST = "https://api.openai.com/"
_BUDGET_KEYS = ("max_tokens", "max_completion_tokens")


def budget_field(base_url: str) -> str:
    """The field the output budget goes in for the server at ``base_url``."""
    official = (base_url.rstrip("/") + "/").startswith(_OFFICIAL_HOST)
    return "max_completion_tokens" if official else "max_tokens"


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if message.tool_calls:
        # A made-up id still has to pair each call with its result inside our own request.
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": wire_arguments(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return out


TOOL_IMAGES_NOTE = "a tool result carries only text]"  # ends the line naming a call's images


def image_url(image: ImagePart) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image.data_url()}}


def _part(part: str | ImagePart) -> dict[str, Any]:
    return image_url(part) if isinstance(part, ImagePart) else {"type": "text", "text": part}


def _user(message: UserMessage) -> dict[str, Any]:
    if message.attachments or message.notes:
        return {"role": "user", "content": [_part(part) for part in message.parts()]}
    return {"role": "user", "content": message.text}


def _tool_images(results: list[ToolResultMessage]) -> dict[str, Any]:
    """A tool message carries only text: the images of a turn's results follow its results, in
    one user message that says whose they are."""
    content: list[dict[str, Any]] = []
    for result in results:
        count = f"{len(result.images)} image" + ("s" if len(result.images) > 1 else "")
        said = f"[{count} returned by {result.name} (call {result.call_id}), sent here because "
        content.append({"type": "text", "text": said + TOOL_IMAGES_NOTE})
        content.extend(image_url(image) for image in result.images)
    return {"role": "user", "content": content}


def _wire(messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    with_images: list[ToolResultMessage] = []
    for message in messages:
        if not isinstance(message, ToolResultMessage) and with_images:
            wire.append(_tool_images(with_images))
            with_images = []
        if isinstance(message, UserMessage):
            wire.append(_user(message))
        elif isinstance(message, AssistantMessage):
            wire.append(_assistant(message))
        elif isinstance(message, ToolResultMessage):
            wire.append(
                {"role": "tool", "tool_call_id": message.call_id, "content": message.output}
            )
            if message.images:
                with_images.append(message)
    if with_images:
        wire.append(_tool_images(with_images))
    return wire


def build_request(
    messages: Sequence[Message], tools: Sequence[ToolSchema], settings: RequestSettings
) -> ProviderRequest:
    wire: list[dict[str, Any]] = []
    if settings.system:
        wire.append({"role": "system", "content": settings.system})
    wire.extend(_wire(messages))
    body: dict[str, Any] = {
        "model": settings.model,
        "messages": wire,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if not any(key in settings.options for key in _BUDGET_KEYS):  # the profile's own wins
        body[budget_field(settings.base_url)] = settings.max_tokens
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in tools
        ]
    if settings.effort:
        body["reasoning_effort"] = settings.effort
    body.update(settings.options)
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if settings.api_key:
        headers["authorization"] = f"Bearer {settings.api_key}"
    url = f"{settings.base_url}/chat/completions"
    return ProviderRequest(url, headers, body, output_limit=settings.max_tokens)
