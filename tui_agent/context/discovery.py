"""Asking the server how large the model's window is, where the protocol lets us.

- OpenAI-compatible servers: ``GET {base_url}/models``, the entry of this model, when it
  carries a length (``context_length`` from OpenRouter and others, vLLM's ``max_model_len``,
  LM Studio's ``max_context_length``); then llama.cpp's ``GET /props`` (the context it runs
  with, ``n_ctx``); then Ollama's ``POST /api/show`` (``num_ctx`` if set, else the model's
  ``*.context_length``).
- Gemini: ``GET /v1beta/models/{model}``, ``inputTokenLimit``.
- Anthropic publishes no window in its API: the built-in table answers.

Every question has a short timeout and any failure means "not known here"; the caller runs
this in the background, so it never delays the first screen or the first turn. A number is
believed only as a whole count of tokens inside a sane range (``window.sane_window``); any
other (0, 1, 10^400, a string) is ignored with a log line.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from .window import sane_window

TIMEOUT_S = 4.0
_MODEL_KEYS = ("context_length", "max_model_len", "max_context_length", "context_window")
_MAX_DIGITS = 12  # a count written with more digits is no window (and int() of 5,000 raises)


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
            if found := sane_window(entry.get(key), f"GET /models ({key})"):
                return found
        top = entry.get("top_provider")
        where = "GET /models (top_provider.context_length)"
        if isinstance(top, dict) and (found := sane_window(top.get("context_length"), where)):
            return found
    return None


def from_llama_props(payload: Any) -> int | None:
    settings = payload.get("default_generation_settings") if isinstance(payload, dict) else None
    where = "llama.cpp's GET /props (n_ctx)"
    if isinstance(settings, dict) and (found := sane_window(settings.get("n_ctx"), where)):
        return found
    return sane_window(payload.get("n_ctx"), where) if isinstance(payload, dict) else None


def from_ollama_show(payload: Any) -> int | None:
    if not isinstance(payload, dict):
        return None
    parameters = payload.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            name, _, value = line.strip().partition(" ")
            if name != "num_ctx":
                continue
            digits = value.strip()
            where = "Ollama's POST /api/show (num_ctx)"
            number = int(digits) if digits.isdigit() and len(digits) <= _MAX_DIGITS else digits
            if found := sane_window(number, where):
                return found
    info = payload.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            where = f"Ollama's POST /api/show ({str(key)[:60]!r})"
            if str(key).endswith(".context_length") and (found := sane_window(value, where)):
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
        if not isinstance(payload, dict):
            return None
        return sane_window(payload.get("inputTokenLimit"), "GET /v1beta/models (inputTokenLimit)")
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
