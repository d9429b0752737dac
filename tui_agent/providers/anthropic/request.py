"""Messages API requests. The assistant's content blocks are rebuilt from its raw events
(thinking with its signature, redacted thinking, server tool blocks) and sent back unchanged;
all results of a turn go in one user message, tool_result blocks first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...conversation import AssistantMessage, ImagePart, Message, ToolResultMessage, UserMessage
from ...stream.jsonparse import loads_exact
from ..effort import anthropic_budget
from ..request import (
    ProviderRequest,
    RequestSettings,
    ToolSchema,
    arguments_object,
    rebuilt_from_stream,
    sse_payloads,
)
from ..server_tools import server_tool_entries

API_VERSION = "2023-06-01"


def content_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    """The assistant's content blocks, rebuilt from its stream when it came from Anthropic."""
    if message.protocol == "anthropic" and message.raw:
        out = rebuilt_from_stream(_blocks_from_stream, message)
        if out:
            return out
    fallback: list[dict[str, Any]] = []
    if message.text:
        fallback.append({"type": "text", "text": message.text})
    for call in message.tool_calls:
        fallback.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": arguments_object(call.arguments),
            }
        )
    return fallback


def _blocks_from_stream(message: AssistantMessage) -> list[dict[str, Any]]:
    """The content blocks as the stream built them (raises on a shape it cannot read)."""
    blocks: dict[int, dict[str, Any]] = {}
    json_parts: dict[int, list[str]] = {}
    for payload in sse_payloads(message.raw):
        kind, index = payload.get("type"), payload.get("index")
        if not isinstance(index, int):
            continue
        if kind == "content_block_start" and isinstance(payload.get("content_block"), dict):
            blocks[index] = dict(payload["content_block"])
        elif kind == "content_block_delta" and index in blocks:
            _apply_delta(blocks[index], json_parts.setdefault(index, []), payload)
    for index, parts in json_parts.items():
        if parts and blocks[index].get("type") in ("tool_use", "server_tool_use"):
            try:
                value = loads_exact("".join(parts))
            except ValueError:
                value = {}
            blocks[index]["input"] = value if isinstance(value, dict) else {}
    return [blocks[i] for i in sorted(blocks)]


def _apply_delta(block: dict[str, Any], json_parts: list[str], payload: dict[str, Any]) -> None:
    delta = payload.get("delta")
    if not isinstance(delta, dict):
        return
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + str(delta.get("text", ""))
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
    elif kind == "signature_delta":
        block["signature"] = block.get("signature", "") + str(delta.get("signature", ""))
    elif kind == "input_json_delta":
        json_parts.append(str(delta.get("partial_json", "")))
    elif kind == "citations_delta" and isinstance(delta.get("citation"), dict):
        block.setdefault("citations", []).append(delta["citation"])


def image_block(image: ImagePart) -> dict[str, Any]:
    source = {"type": "base64", "media_type": image.media_type, "data": image.base64()}
    return {"type": "image", "source": source}


def _part(part: str | ImagePart) -> dict[str, Any]:
    return image_block(part) if isinstance(part, ImagePart) else {"type": "text", "text": part}


def _result_content(message: ToolResultMessage) -> str | list[dict[str, Any]]:
    """The result's text, or its text block and image blocks (a text block is never empty)."""
    if not message.images:
        return message.output
    text = [{"type": "text", "text": message.output}] if message.output else []
    return text + [image_block(image) for image in message.images]


def _messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []

    def user_content() -> list[dict[str, Any]]:
        if not wire or wire[-1]["role"] != "user":
            wire.append({"role": "user", "content": []})
        content: list[dict[str, Any]] = wire[-1]["content"]
        return content

    for message in messages:
        if isinstance(message, UserMessage):
            user_content().extend(_part(part) for part in message.parts())
        elif isinstance(message, ToolResultMessage):
            content = user_content()
            # tool_result blocks must come first in their user message.
            first_text = next(
                (i for i, b in enumerate(content) if b["type"] != "tool_result"), len(content)
            )
            content.insert(
                first_text,
                {
                    "type": "tool_result",
                    "tool_use_id": message.call_id,
                    "content": _result_content(message),
                    "is_error": message.is_error,
                },
            )
        elif isinstance(message, AssistantMessage):
            blocks = content_blocks(message)
            if blocks:
                wire.append({"role": "assistant", "content": blocks})
    return wire


def build_request(
    messages: Sequence[Message], tools: Sequence[ToolSchema], settings: RequestSettings
) -> ProviderRequest:
    body: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": settings.max_tokens,
        "stream": True,
        "messages": _messages(messages),
    }
    if settings.system:
        body["system"] = settings.system
    if tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in tools
        ]
    if extra := server_tool_entries("anthropic", settings.server_tools):
        body["tools"] = [*body.get("tools", []), *extra]  # run at the provider
    if settings.effort:
        budget = anthropic_budget(settings.effort, settings.max_tokens)
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    body.update(settings.options)
    headers = {
        "content-type": "application/json",
        "accept": "text/event-stream",
        "anthropic-version": API_VERSION,
    }
    if settings.api_key:
        headers["x-api-key"] = settings.api_key
    url = f"{settings.base_url}/v1/messages"
    return ProviderRequest(url, headers, body, output_limit=settings.max_tokens)
