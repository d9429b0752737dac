"""Asking the server how large the model's window is, where the protocol lets us.

- OpenAI-compatible servers: ``GET {base_url}/models``, the entry of this model, when it
  carries a length (``context_length`` from OpenRouter and others, vLLM's ``max_model_len``,
  LM Studio's ``max_context_length``); then llama.cpp's ``GET /props`` (the context it runs
  with, ``n_ctx``); then Ollama's ``POST /api/show`` (``num_ctx`` if set, else the model's
  ``*.context_length``).
- Gemini: ``GET /v1beta/models/{model}``, ``inputTokenLimit``.
- Anthropic publishes no window in its API: the built-in table answers.

Every question has a short timeout and any failure means "not known here"; the caller runs
this in the background, so it never delays the first screen or the first turn.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

TIMEOUT_S = 4.0
_MODEL_KEYS = ("context_length", "max_model_len", "max_context_length", "context_window")


def _positive(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def _root(base_url: str) -> str:
    """``http://host:port`` of a base URL (llama.cpp and Ollama answer at the root)."""
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"


async def _get_json(
    client: httpx.AsyncClient, method: str, url: str, headers: dict[str, str], body: Any = None
) -> Any:
    with contextlib.suppress(httpx.HTTPError, ValueError):
        response = await client.request(
            method, url, headers=headers, json=body, timeout=TIMEOUT_S, follow_redirects=False
        )
        if response.status_code == 200 and len(response.content) <= 4 * 1024 * 1024:
            return response.json()
    return None


def from_model_list(payload: Any, model: str) -> int | None:
    """The length the ``/models`` entry of ``model`` carries (top level or under ``meta``)."""
    entries = payload.get("data") if isinstance(payload, dict) else payload
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("id") != model:
            continue
        for key in _MODEL_KEYS:
            if found := _positive(entry.get(key)):
                return found
        top = entry.get("top_provider")
        if isinstance(top, dict) and (found := _positive(top.get("context_length"))):
            return found
    return None


def from_llama_props(payload: Any) -> int | None:
    settings = payload.get("default_generation_settings") if isinstance(payload, dict) else None
    if isinstance(settings, dict) and (found := _positive(settings.get("n_ctx"))):
        return found
    return _positive(payload.get("n_ctx")) if isinstance(payload, dict) else None


def from_ollama_show(payload: Any) -> int | None:
    if not isinstance(payload, dict):
        return None
    parameters = payload.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            name, _, value = line.strip().partition(" ")
            if name == "num_ctx" and value.strip().isdigit():
                return _positive(int(value.strip()))
    info = payload.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            found = _positive(value)
            if found and isinstance(key, str) and key.endswith(".context_length"):
                return found
    return None


async def ask_window(
    client: httpx.AsyncClient, protocol: str, base_url: str, model: str, api_key: str | None
) -> int | None:
    """The window the server reports for ``model``, or None."""
    if protocol in ("gemini", "gemini-interactions"):
        headers = {"x-goog-api-key": api_key} if api_key else {}
        name = model if model.startswith("models/") else f"models/{model}"
        payload = await _get_json(
            client, "GET", f"{base_url}/v1beta/{quote(name, safe='/')}", headers
        )
        return _positive(payload.get("inputTokenLimit")) if isinstance(payload, dict) else None
    if not protocol.startswith("openai"):
        return None
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    found = from_model_list(await _get_json(client, "GET", f"{base_url}/models", headers), model)
    if found:
        return found
    root = _root(base_url)
    found = from_llama_props(await _get_json(client, "GET", f"{root}/props", headers))
    if found:
        return found
    show = await _get_json(client, "POST", f"{root}/api/show", headers, {"model": model})
    return from_ollama_show(show)
