"""What every request must look like, per protocol: route, auth, body, tools, tool results.

Each check returns a list of problems (empty: fine); ``tool_results`` raises ``Problem``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .http import Request

ROUTES = {
    "openai-responses": "/v1/responses",
    "openai-chat": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "gemini-interactions": "/v1beta/interactions",
}
GEMINI_ROUTE = re.compile(r"/v1beta/models/[^/:]+:streamGenerateContent")


class Problem(AssertionError):
    """The request breaks a rule the real provider enforces."""


def route_problem(protocol: str, request: Request) -> str | None:
    """Why this request went to the wrong place, or None."""
    if request.method != "POST":
        return f"method {request.method}, expected POST"
    if protocol == "gemini":
        if not GEMINI_ROUTE.fullmatch(request.path):
            return f"path {request.path}, expected /v1beta/models/{{model}}:streamGenerateContent"
        if request.query.get("alt") != "sse":
            return "gemini streaming needs the query ?alt=sse"
    elif request.path != ROUTES[protocol]:
        return f"path {request.path}, expected {ROUTES[protocol]}"
    return None


def auth_problems(protocol: str, request: Request, api_key: str | None) -> list[str]:
    """Auth headers; anthropic-version is checked whether or not a key is set."""
    headers = request.headers
    out = []
    if protocol == "anthropic" and not headers.get("anthropic-version"):
        out.append("missing anthropic-version header")
    if api_key is None:
        return out
    if protocol.startswith("openai"):
        name, want = "authorization", f"Bearer {api_key}"
    elif protocol == "anthropic":
        name, want = "x-api-key", api_key
    else:
        name, want = "x-goog-api-key", api_key
    if headers.get(name) != want:
        out.append(f"header {name} is {_redact(headers.get(name))}, expected the server's key")
    return out


def _redact(value: str | None) -> str:
    return "missing" if value is None else f"a wrong value ({len(value)} chars)"


def body_problems(protocol: str, request: Request, require_tools: bool) -> list[str]:
    """Streaming flag, model, conversation and tool declarations."""
    body = request.json
    if not isinstance(body, dict):
        return ["the body is not a JSON object"]
    if "json" not in request.headers.get("content-type", ""):
        return ["content-type is not application/json"]
    out = []
    if protocol != "gemini":
        if body.get("stream") is not True:
            out.append('"stream": true is missing')
        if not isinstance(body.get("model"), str) or not body["model"]:
            out.append('"model" is missing')
    conversation = {
        "openai-chat": "messages",
        "openai-responses": "input",
        "anthropic": "messages",
        "gemini-interactions": "input",
        "gemini": "contents",
    }[protocol]
    if not body.get(conversation):
        out.append(f'"{conversation}" is missing or empty')
    if protocol == "anthropic" and not isinstance(body.get("max_tokens"), int):
        out.append('"max_tokens" is required by anthropic')
    tools = body.get("tools")
    if tools is None:
        if require_tools:
            out.append('"tools" is missing')
    else:
        out += _tool_problems(protocol, tools)
    return out


# The providers' own tools a request may switch on, as each protocol names them.
_SERVER_TOOLS: dict[str, list[dict[str, Any]]] = {
    "anthropic": [{"type": "web_search_20250305", "name": "web_search"}],
    "openai-responses": [{"type": "web_search"}],
    "gemini-interactions": [{"type": "google_search"}],
    "gemini": [{"google_search": {}}],
}


def _tool_problems(protocol: str, tools: Any) -> list[str]:
    if not isinstance(tools, list) or not tools:
        return ['"tools" must be a non-empty list']
    if protocol == "gemini":
        odd = [
            t for t in tools if t not in _SERVER_TOOLS["gemini"] and "functionDeclarations" not in t
        ]
        if odd:
            return [f"tool {json.dumps(odd[0])[:80]} is not a gemini tool"]
        decls = [d for t in tools if isinstance(t, dict) for d in t.get("functionDeclarations", [])]
        if not decls:
            return ['"tools" has no functionDeclarations']
        return [
            f"functionDeclaration {d.get('name')!r} needs a name and a parameters schema"
            for d in decls
            if not isinstance(d.get("name"), str)
            or not isinstance(d.get("parametersJsonSchema", d.get("parameters")), dict)
        ]
    out = []
    for tool in tools:
        if tool in _SERVER_TOOLS.get(protocol, ()):
            continue  # the provider's own tool (tui_agent/providers/server_tools.py)
        spec = tool.get("function") if protocol == "openai-chat" else tool
        schema_key = "input_schema" if protocol == "anthropic" else "parameters"
        typed = protocol == "anthropic" or tool.get("type") == "function"
        if not typed or not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            out.append(f"tool {json.dumps(tool)[:80]} is not a {protocol} function tool")
        elif not isinstance(spec.get(schema_key), dict):
            out.append(f"tool {spec['name']!r} has no {schema_key} object")
    return out


def _output_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise Problem(message)


def _same_ids(results: list[Any], calls: list[Any], what: str) -> None:
    _need(
        sorted(results) == sorted(calls),
        f"tool results {sorted(results)} do not answer the {what} {sorted(calls)} one to one",
    )


def tool_results(protocol: str, body: dict[str, Any]) -> dict[str, str]:
    """The last batch of tool results, {call key: output text}; {} if the request ends otherwise.

    The batch is what follows the model's latest calls, which it must answer one to one.

    Raises ``Problem`` when they are not in the exact shape the provider accepts.
    """
    return _EXTRACTORS[protocol](body)


def _chat(body: dict[str, Any]) -> dict[str, str]:
    messages = body.get("messages") or []
    i = len(messages)
    while i > 0 and isinstance(messages[i - 1], dict) and messages[i - 1].get("role") == "tool":
        i -= 1
    results = messages[i:]
    if not results:
        return {}
    for m in results:
        _need(isinstance(m.get("tool_call_id"), str), 'a role "tool" message has no tool_call_id')
        _need("content" in m, f"tool message {m['tool_call_id']} has no content")
    assistant = messages[i - 1] if i else {}
    calls = (assistant.get("tool_calls") if assistant.get("role") == "assistant" else None) or []
    _need(bool(calls), 'role "tool" messages must follow an assistant message with tool_calls')
    for call in calls:
        fn = call.get("function") or {}
        _need(
            call.get("type") == "function" and isinstance(fn.get("arguments"), str),
            f"assistant tool_call {call.get('id')} needs type function and string arguments",
        )
    _same_ids([m["tool_call_id"] for m in results], [c.get("id") for c in calls], "tool_calls")
    return {m["tool_call_id"]: _output_text(m["content"]) for m in results}


def _responses(body: dict[str, Any]) -> dict[str, str]:
    items = body.get("input")
    if not isinstance(items, list):
        return {}
    i = len(items)
    while i > 0 and items[i - 1].get("type") == "function_call_output":
        i -= 1
    outputs = items[i:]
    calls = []  # the batch's calls: back to the previous results or the user's message
    while i > 0 and items[i - 1].get("type") != "function_call_output":
        if items[i - 1].get("role") == "user":
            break
        if items[i - 1].get("type") == "function_call":
            calls.append(items[i - 1])
        i -= 1
    if not outputs:
        return {}
    for out in outputs:
        _need(isinstance(out.get("call_id"), str), "a function_call_output has no call_id")
        _need("output" in out, f"function_call_output {out['call_id']} has no output")
    if calls:
        for call in calls:
            _need(
                isinstance(call.get("call_id"), str) and isinstance(call.get("arguments"), str),
                f"function_call item {call.get('id')} needs call_id and string arguments",
            )
        _same_ids([o["call_id"] for o in outputs], [c["call_id"] for c in calls], "call_ids")
    else:
        _need(
            bool(body.get("previous_response_id")),
            "function_call_output without its function_call items needs previous_response_id",
        )
    return {o["call_id"]: _output_text(o["output"]) for o in outputs}


def _anthropic(body: dict[str, Any]) -> dict[str, str]:
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    content = last.get("content") if last.get("role") == "user" else None
    if not isinstance(content, list):
        return {}
    blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    if not blocks:
        return {}
    _need(content[: len(blocks)] == blocks, "tool_result blocks must come first in the message")
    for b in blocks:
        _need(isinstance(b.get("tool_use_id"), str), "a tool_result block has no tool_use_id")
    prior = messages[-2] if len(messages) > 1 else {}
    prior_blocks = prior.get("content") if prior.get("role") == "assistant" else None
    uses = [b for b in prior_blocks or [] if isinstance(b, dict) and b.get("type") == "tool_use"]
    _need(bool(uses), "tool_result blocks must follow an assistant message with tool_use blocks")
    for use in uses:
        _need(isinstance(use.get("input"), dict), f"tool_use {use.get('id')} input not an object")
    _same_ids([b["tool_use_id"] for b in blocks], [u.get("id") for u in uses], "tool_use ids")
    return {b["tool_use_id"]: _output_text(b.get("content", "")) for b in blocks}


def _interactions(body: dict[str, Any]) -> dict[str, str]:
    steps = body.get("input")
    if not isinstance(steps, list):
        return {}
    results: list[dict[str, Any]] = []
    i = len(steps)
    while i > 0 and isinstance(steps[i - 1], dict):
        step = steps[i - 1]
        inner = step.get("content") if step.get("type") == "user_input" else None
        if step.get("type") == "function_result":
            results.insert(0, step)
        elif (
            isinstance(inner, list)
            and inner
            and all(isinstance(c, dict) and c.get("type") == "function_result" for c in inner)
        ):
            results[:0] = inner
        else:
            break
        i -= 1
    if not results:
        return {}
    for r in results:
        _need(isinstance(r.get("call_id"), str), "a function_result has no call_id")
        _need("result" in r, f"function_result {r['call_id']} has no result")
    calls = []  # the batch's calls: back to the previous results or the user's input
    while i > 0 and steps[i - 1].get("type") not in ("user_input", "function_result"):
        if steps[i - 1].get("type") == "function_call":
            calls.append(steps[i - 1].get("id"))
        i -= 1
    if calls:
        _same_ids([r["call_id"] for r in results], calls, "function_call ids")
    else:
        _need(
            bool(body.get("previous_interaction_id")),
            "function_result without its function_call steps needs previous_interaction_id",
        )
    return {r["call_id"]: _output_text(r["result"]) for r in results}


def _gemini(body: dict[str, Any]) -> dict[str, str]:
    contents = body.get("contents") or []
    last = contents[-1] if contents else {}
    parts = last.get("parts") if last.get("role") == "user" else None
    answers = [p["functionResponse"] for p in parts or [] if "functionResponse" in p]
    if not answers:
        return {}
    for a in answers:
        _need(isinstance(a.get("name"), str), "a functionResponse has no name")
        _need(isinstance(a.get("response"), dict), f"functionResponse {a['name']} response")
    prior = contents[-2] if len(contents) > 1 else {}
    calls = [
        p["functionCall"]
        for p in (prior.get("parts") or [] if prior.get("role") == "model" else [])
        if isinstance(p.get("functionCall"), dict) and p["functionCall"].get("name")
    ]
    _need(bool(calls), "functionResponse parts must follow a model content with functionCalls")
    _same_ids([a["name"] for a in answers], [c["name"] for c in calls], "functionCall names")
    ids = [c["id"] for c in calls if c.get("id")]
    _same_ids([a["id"] for a in answers if a.get("id")], ids, "functionCall ids")
    return {a.get("id") or a["name"]: _output_text(a["response"]) for a in answers}


_EXTRACTORS = {
    "openai-chat": _chat,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini-interactions": _interactions,
    "gemini": _gemini,
}


def expect_tool_results(protocol: str, body: Any, want: dict[str, str | None]) -> None:
    """Raise ``Problem`` unless the request ends with exactly the wanted tool results."""
    got = tool_results(protocol, body)
    _need(bool(got), f"expected tool results for {sorted(want)}, found none at the end")
    _need(sorted(got) == sorted(want), f"tool results for {sorted(got)}, expected {sorted(want)}")
    for key, fragment in want.items():
        if fragment is not None:
            _need(fragment in got[key], f"tool result {key} lacks {fragment!r}: {got[key][:200]!r}")
