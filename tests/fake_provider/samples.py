"""Hand-written requests in each protocol's exact shape, to drive the fake without the agent.

``request(protocol, result=(call id, output))`` is the first request (user message and tools)
or, with ``result``, the second one: the model's call to get_weather as ``CALL_ID``, then the
tool result under the given id.
"""

from __future__ import annotations

import json
from typing import Any

CALL_ID = "call_A"
TOOL = "get_weather"
ARGS = {"city": "Paris"}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CALL_OPS = [
    ("call", 0, CALL_ID, TOOL),
    ("args", 0, '{"city":'),
    ("args", 0, '"Paris"}'),
    ("close", 0),
]
PATHS = {
    "openai-responses": "/responses",
    "openai-chat": "/chat/completions",
    "anthropic": "/v1/messages",
    "gemini-interactions": "/v1beta/interactions",
    "gemini": "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
}


def url(base_url: str, protocol: str) -> str:
    return base_url + PATHS[protocol]


def headers(protocol: str, key: str | None) -> dict[str, str]:
    out = {"anthropic-version": "2023-06-01"} if protocol == "anthropic" else {}
    if key is None:
        return out
    if protocol.startswith("openai"):
        return {**out, "authorization": f"Bearer {key}"}
    if protocol == "anthropic":
        return {**out, "x-api-key": key}
    return {**out, "x-goog-api-key": key}


def _tools(protocol: str) -> list[dict[str, Any]]:
    if protocol == "openai-chat":
        return [{"type": "function", "function": {"name": TOOL, "parameters": SCHEMA}}]
    if protocol == "anthropic":
        return [{"name": TOOL, "input_schema": SCHEMA}]
    if protocol == "gemini":
        return [{"functionDeclarations": [{"name": TOOL, "parametersJsonSchema": SCHEMA}]}]
    return [{"type": "function", "name": TOOL, "parameters": SCHEMA}]


def request(protocol: str, result: tuple[str, str] | None = None) -> dict[str, Any]:
    """A request body; with ``result`` = (id to answer under, output), the second turn."""
    args = json.dumps(ARGS)
    body: dict[str, Any] = {"model": "test-model", "stream": True, "tools": _tools(protocol)}
    rid, output = result or ("", "")
    if protocol == "openai-chat":
        history: list[Any] = [{"role": "user", "content": "weather?"}]
        if result:
            call = {
                "id": CALL_ID,
                "type": "function",
                "function": {"name": TOOL, "arguments": args},
            }
            history += [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": rid, "content": output},
            ]
        return {**body, "messages": history}
    if protocol == "openai-responses":
        history = [{"role": "user", "content": "weather?"}]
        if result:
            call = {"type": "function_call", "id": "fc_0", "call_id": CALL_ID, "name": TOOL}
            history += [
                {**call, "arguments": args},
                {"type": "function_call_output", "call_id": rid, "output": output},
            ]
        return {**body, "input": history}
    if protocol == "anthropic":
        history = [{"role": "user", "content": "weather?"}]
        if result:
            use = {"type": "tool_use", "id": CALL_ID, "name": TOOL, "input": ARGS}
            history += [
                {"role": "assistant", "content": [use]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": rid}]},
            ]
            history[-1]["content"][0]["content"] = output
        return {**body, "max_tokens": 1024, "messages": history}
    if protocol == "gemini-interactions":
        history = [{"type": "user_input", "content": [{"type": "text", "text": "weather?"}]}]
        if result:
            history += [
                {"type": "function_call", "id": CALL_ID, "name": TOOL, "arguments": ARGS},
                {"type": "function_result", "call_id": rid, "name": TOOL, "result": output},
            ]
        return {**body, "input": history}
    contents: list[Any] = [{"role": "user", "parts": [{"text": "weather?"}]}]
    if result:
        answer = {"name": TOOL, "id": rid, "response": {"output": output}}
        contents += [
            {
                "role": "model",
                "parts": [{"functionCall": {"name": TOOL, "args": ARGS, "id": CALL_ID}}],
            },
            {"role": "user", "parts": [{"functionResponse": answer}]},
        ]
    return {"tools": body["tools"], "contents": contents}
