"""One clear line for an HTTP error from a provider; never the key."""

from __future__ import annotations

import json

_STATUS_HINTS = {
    401: "the API key was refused",
    403: "access denied",
    404: "not found (check base_url and model)",
    408: "request timeout",
    413: "request too large",
    429: "rate limited",
    500: "server error",
    502: "bad gateway",
    503: "service unavailable",
    529: "overloaded",
}


def describe_http_error(provider: str, status: int, body: bytes, secret: str | None) -> str:
    """``"anthropic: HTTP 401 (the API key was refused): invalid x-api-key"``."""
    detail = _message_from_body(body)
    hint = _STATUS_HINTS.get(status)
    head = f"{provider}: HTTP {status}" + (f" ({hint})" if hint else "")
    text = f"{head}: {detail}" if detail else head
    if secret:
        text = text.replace(secret, "[REDACTED]")
    return " ".join(text.split())[:500]


def _message_from_body(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return ""
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: a hostile server's nesting
        return "" if text.lstrip().startswith("<") else text[:200]
    if isinstance(payload, list) and payload:
        payload = payload[0]
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict):
            message = error.get("message") or error.get("type") or error.get("status")
            text = str(message) if message else ""
            # llama.cpp names its window beside the message (on every endpoint it serves):
            # kept in the line, so the overflow's limit can be read from it.
            window = error.get("n_ctx", payload.get("n_ctx"))
            if isinstance(window, int) and not isinstance(window, bool) and "n_ctx" not in text:
                text = f"{text} (n_ctx {window})" if text else f"n_ctx {window}"
            return text
        if isinstance(error, str):
            return error
    return ""
