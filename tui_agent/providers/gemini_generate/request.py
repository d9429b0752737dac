"""streamGenerateContent requests. The model's parts go back as sent (thought signatures
byte-exact); a call streamed as partialArgs goes back whole, with its rebuilt arguments.
Results are functionResponse parts; an id we made up is never sent. A profile's web search adds
``{"google_search": {}}`` (providers/server_tools.py); the search's toolCall and toolResponse parts
go back as the server sent them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...conversation import AssistantMessage, ImagePart, Message, ToolResultMessage, UserMessage
from ..effort import BUDGETS
from ..request import (
    ProviderRequest,
    RequestSettings,
    ToolSchema,
    arguments_object,
    rebuilt_from_stream,
    sse_payloads,
)
from ..server_tools import server_tool_entries


def model_parts(message: AssistantMessage) -> list[dict[str, Any]]:
    """The model content's parts, rebuilt from its stream when it came from Gemini."""
    calls = list(message.tool_calls)
    if message.protocol == "gemini" and message.raw:
        parts = rebuilt_from_stream(_parts_from_stream, message)
        if parts:
            return parts
    fallback: list[dict[str, Any]] = [{"text": message.text}] if message.text else []
    return fallback + [{"functionCall": _function_call(call)} for call in calls]


def _parts_from_stream(message: AssistantMessage) -> list[dict[str, Any]]:
    """The parts as the stream built them (raises on a shape it cannot read)."""
    calls = list(message.tool_calls)
    parts: list[dict[str, Any]] = []
    position = 0
    for payload in sse_payloads(message.raw):
        candidates = payload.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            continue
        content = candidates[0].get("content") if isinstance(candidates[0], dict) else None
        found = content.get("parts", []) if isinstance(content, dict) else []
        for part in found if isinstance(found, list) else []:
            if not isinstance(part, dict):
                continue
            call = part.get("functionCall")
            if isinstance(call, dict):
                if not call.get("name"):
                    continue  # a partialArgs piece or the closing {}: the call is rebuilt
                rebuilt = dict(part)
                if position < len(calls):
                    rebuilt["functionCall"] = _function_call(calls[position])
                position += 1
                parts.append(rebuilt)
            elif part.get("text") or part.get("thoughtSignature"):
                parts.append(part)
            elif "toolCall" in part or "toolResponse" in part:
                parts.append(part)  # a search the server ran: sent back as it came
    return parts


def _function_call(call: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": call.name, "args": arguments_object(call.arguments)}
    if not call.synthetic_id:
        out["id"] = call.id
    return out


def inline_data(image: ImagePart) -> dict[str, Any]:
    return {"inlineData": {"mimeType": image.media_type, "data": image.base64()}}


def _part(part: str | ImagePart) -> dict[str, Any]:
    return inline_data(part) if isinstance(part, ImagePart) else {"text": part}


def _contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = []
    synthetic: set[str] = set()

    def user_parts() -> list[dict[str, Any]]:
        if not contents or contents[-1]["role"] != "user":
            contents.append({"role": "user", "parts": []})
        parts: list[dict[str, Any]] = contents[-1]["parts"]
        return parts

    for message in messages:
        if isinstance(message, UserMessage):
            user_parts().extend(_part(part) for part in message.parts())
        elif isinstance(message, AssistantMessage):
            synthetic |= {c.id for c in message.tool_calls if c.synthetic_id}
            parts = model_parts(message)
            if parts:
                contents.append({"role": "model", "parts": parts})
        elif isinstance(message, ToolResultMessage):
            key = "error" if message.is_error else "output"
            response: dict[str, Any] = {"name": message.name, "response": {key: message.output}}
            if message.call_id not in synthetic:
                response["id"] = message.call_id
            parts = user_parts()
            # The turn's functionResponse parts first; a tool's images (inline data) after them.
            first_other = next(
                (i for i, part in enumerate(parts) if "functionResponse" not in part), len(parts)
            )
            parts.insert(first_other, {"functionResponse": response})
            parts.extend(inline_data(image) for image in message.images)
    return contents


def build_request(
    messages: Sequence[Message], tools: Sequence[ToolSchema], settings: RequestSettings
) -> ProviderRequest:
    body: dict[str, Any] = {"contents": _contents(messages)}
    if settings.system:
        body["systemInstruction"] = {"parts": [{"text": settings.system}]}
    if tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {
                        "name": t.name,
                        "description": t.description,
                        "parametersJsonSchema": t.parameters,
                    }
                    for t in tools
                ]
            }
        ]
    searches = server_tool_entries("gemini", settings.server_tools)
    if searches:
        body["tools"] = [*body.get("tools", []), *searches]  # run at the provider
    body.update(settings.options)
    if searches and tools:
        # The API takes a search beside declared functions only with this set (Gemini 3).
        tool_config = body.get("toolConfig")
        body["toolConfig"] = {
            "includeServerSideToolInvocations": True,
            **(tool_config if isinstance(tool_config, dict) else {}),
        }
    config = body.get("generationConfig")
    body["generationConfig"] = {
        "maxOutputTokens": settings.max_tokens,
        **(
            {"thinkingConfig": {"thinkingBudget": BUDGETS[settings.effort]}}
            if settings.effort
            else {}
        ),
        **(config if isinstance(config, dict) else {}),
    }
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    if settings.api_key:
        headers["x-goog-api-key"] = settings.api_key
    url = f"{settings.base_url}/v1beta/models/{settings.model}:streamGenerateContent?alt=sse"
    return ProviderRequest(url, headers, body, output_limit=settings.max_tokens)
