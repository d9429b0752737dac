"""Shared pieces of the context-window tests: provider bodies with a chosen usage, each
provider's own overflow error, and readers of what a request sent."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from . import wire
from .fake_provider import Reply, Status
from .wire import Op

TEXT_STOP = {"openai-chat": "stop", "anthropic": "end_turn"}


def with_usage(protocol: str, body: bytes, total: int) -> bytes:
    """``body`` (a tests/wire.py body) reporting ``total`` tokens in the protocol's own shape."""
    if protocol == "openai-chat":
        usage = {"prompt_tokens": total - 5, "completion_tokens": 5, "total_tokens": total}
        chunk = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": []}
        line = f"data: {json.dumps({**chunk, 'usage': usage})}\n\n".encode()
        return body.replace(b"data: [DONE]", line + b"data: [DONE]")
    swaps = {
        "anthropic": (b'"input_tokens": 5', f'"input_tokens": {total - 9}'.encode()),
        "openai-responses": (b'"input_tokens": 3', f'"input_tokens": {total - 4}'.encode()),
        "gemini-interactions": (b'"total_tokens": 7', f'"total_tokens": {total}'.encode()),
        "gemini": (b'"totalTokenCount": 3', f'"totalTokenCount": {total}'.encode()),
    }
    old, new = swaps[protocol]
    assert old in body
    return body.replace(old, new)


def reply(protocol: str, ops: Sequence[Op], total: int, **kwargs: Any) -> Reply:
    """A complete answer of ``ops`` that reports ``total`` tokens of usage."""
    calls = any(op[0] == "call" for op in ops)
    builder = wire.BUILDERS[protocol]
    if protocol in TEXT_STOP and not calls:
        body = builder(ops, stop=TEXT_STOP[protocol])
    else:
        body = builder(ops)
    return Reply(with_usage(protocol, body, total), **kwargs)


def text_reply(protocol: str, text: str, total: int, **kwargs: Any) -> Reply:
    return reply(protocol, [("text", text)], total, **kwargs)


# Each provider's context-length error, as its API returns it (HTTP 400).
OVERFLOW_BODIES: dict[str, dict[str, Any]] = {
    "openai-chat": {
        "error": {
            "message": "This model's maximum context length is 1000 tokens. However, your "
            "messages resulted in 1200 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    },
    "openai-responses": {
        "error": {
            "message": "Your input exceeds the context window of this model. Please adjust "
            "your input and try again.",
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded",
        }
    },
    "anthropic": {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 1200 tokens > 1000 maximum",
        },
    },
    "gemini": {
        "error": {
            "code": 400,
            "message": "The input token count (1200) exceeds the maximum number of tokens "
            "allowed (1000).",
            "status": "INVALID_ARGUMENT",
        }
    },
    "gemini-interactions": {
        "error": {
            "code": "invalid_argument",
            "message": "The input token count (1200) exceeds the maximum number of tokens "
            "allowed (1000).",
        }
    },
}
LLAMA_CPP_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 1200,
        "n_ctx": 1000,
    }
}
VLLM_OVERFLOW = {
    "object": "error",
    "message": "This model's maximum context length is 1000 tokens. However, you requested "
    "1200 tokens (1100 in the messages, 100 in the completion). Please reduce the length of "
    "the messages or completion.",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}


def overflow_status(body: dict[str, Any]) -> Status:
    return Status(400, body=json.dumps(body).encode())


def request_text(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False)


def offered_tools(protocol: str, body: dict[str, Any]) -> bool:
    """True when the request offers any tool."""
    return bool(body.get("tools"))
