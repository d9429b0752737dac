"""Asking the server how large the model's window is, the same way whatever protocol the
profile speaks (a llama.cpp server behind an Anthropic profile is the same server as behind a
Chat Completions one).

1. The protocol's own model list: Chat Completions and Responses ``GET {base_url}/models``,
   Anthropic ``GET {base_url}/v1/models``, the entry of this model when it carries a length
   (``context_length`` from OpenRouter and others, vLLM's ``max_model_len``, LM Studio's
   ``max_context_length``); Gemini ``GET /v1beta/models/{model}``, ``inputTokenLimit``.
2. Unless the profile points at the protocol's own vendor: llama.cpp's ``GET /props`` (the
   context it runs with, ``n_ctx``), Ollama's ``POST /api/show`` (``num_ctx`` if set, else the
   model's ``*.context_length``), and last the OpenAI-style ``GET /v1/models`` entry's
   ``meta`` (llama.cpp: ``n_ctx``, else the length it was trained for, ``n_ctx_train``).

The same questions give the models the server offers (``discover_models``): the protocol's own
list (the ``data[].id`` of ``/models``, Gemini's ``GET /v1beta/models``), else, off the vendor,
Ollama's ``GET /api/tags`` and the OpenAI-style ``/v1/models`` of the root. One discovery answers
both: the app's ``/model`` list and ``tui-agent models`` are what the window was asked with.

What answered is kept beside the number (``Found.where``), so the person can be shown where
the window came from. Every question has a short timeout and any failure means "not known
here"; the caller runs this in the background, so it never delays the first screen or the
first turn. A number is believed only as a whole count of tokens inside a sane range
(``window.sane_window``); any other (0, 1, 10^400, a string) is ignored with a log line.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from ..providers.registry import PROTOCOLS
from .window import sane_window

TIMEOUT_S = 4.0
_MODEL_KEYS = ("context_length", "max_model_len", "max_context_length", "context_window")
_MAX_DIGITS = 12  # a count written with more digits is no window (and int() of 5,000 raises)
_ANTHROPIC_VERSION = "2023-06-01"
_MAX_MODELS = 2000  # entries of one list read (a server could send millions)
_MAX_NAME = 200
# What a model's name may hold (anything else, markup or control characters, is no name we show)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@+")


@dataclass(frozen=True, slots=True)
class Found:
    """A window a server reported, and which question it answered."""

    size: int
    where: str


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


def _entries(payload: Any) -> list[dict[str, Any]]:
    entries = payload.get("data") if isinstance(payload, dict) else payload
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def from_model_list(payload: Any, model: str) -> int | None:
    """The length the ``/models`` entry of ``model`` carries at its top level."""
    found = _from_model_list(payload, model, "GET /models")
    return found.size if found else None


def _from_model_list(payload: Any, model: str, asked: str) -> Found | None:
    for entry in _entries(payload):
        if entry.get("id") != model:
            continue
        for key in _MODEL_KEYS:
            where = f"{asked} ({key})"
            if found := sane_window(entry.get(key), where):
                return Found(found, where)
        top = entry.get("top_provider")
        where = f"{asked} (top_provider.context_length)"
        if isinstance(top, dict) and (found := sane_window(top.get("context_length"), where)):
            return Found(found, where)
    return None


def _from_model_meta(payload: Any, model: str) -> Found | None:
    """llama.cpp's ``/v1/models`` ``meta`` of this model's entry (or of the only entry: its id
    is the file the server loaded, whatever name the profile gives the model)."""
    entries = _entries(payload)
    chosen = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in chosen:
        meta = entry.get("meta")
        for key in ("n_ctx", "n_ctx_train"):
            where = f"GET /v1/models (meta.{key})"
            if isinstance(meta, dict) and (found := sane_window(meta.get(key), where)):
                return Found(found, where)
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


def _headers(protocol: str, api_key: str | None) -> dict[str, str]:
    """The key as the protocol sends it (the same server is asked, so the same key goes)."""
    if protocol.startswith("gemini"):
        return {"x-goog-api-key": api_key} if api_key else {}
    if protocol == "anthropic":
        return {"anthropic-version": _ANTHROPIC_VERSION} | (
            {"x-api-key": api_key} if api_key else {}
        )
    return {"authorization": f"Bearer {api_key}"} if api_key else {}


def _vendor(protocol: str, base_url: str) -> bool:
    """True when ``base_url`` is the protocol's own vendor (no llama.cpp or Ollama there)."""
    spec = PROTOCOLS.get(protocol)
    if spec is None:
        return False
    official, given = urlsplit(spec.base_url), urlsplit(base_url)
    return given.scheme == official.scheme and given.hostname == official.hostname


async def ask_window(
    client: httpx.AsyncClient, protocol: str, base_url: str, model: str, api_key: str | None
) -> int | None:
    """The window the server reports for ``model``, or None."""
    found = await discover(client, protocol, base_url, model, api_key)
    return found.size if found else None


@dataclass(frozen=True, slots=True)
class ServerModels:
    """What the server said: the models it offers (in its order) and the window of ``model``."""

    models: tuple[str, ...]
    window: Found | None


async def discover(
    client: httpx.AsyncClient, protocol: str, base_url: str, model: str, api_key: str | None
) -> Found | None:
    """The window the server reports for ``model`` and where it said so, or None."""
    return (await discover_models(client, protocol, base_url, model, api_key)).window


def model_ids(payload: Any) -> tuple[str, ...]:
    """The ids of a model list: OpenAI-style ``data[].id``, Gemini's ``models[].name`` (without
    ``models/``), Ollama's ``models[].name``; each once, only sane names."""
    entries: list[Any] = _entries(payload)
    if not entries and isinstance(payload, dict) and isinstance(payload.get("models"), list):
        entries = [e for e in payload["models"] if isinstance(e, dict)]
    seen: dict[str, None] = {}
    for entry in entries[:_MAX_MODELS]:
        name = entry.get("id", entry.get("name", entry.get("model")))
        if not isinstance(name, str):
            continue
        name = name.removeprefix("models/").strip()
        if name and len(name) <= _MAX_NAME and all(ch in _NAME_CHARS for ch in name):
            seen[name] = None
    return tuple(seen)


def _gemini_window(payload: Any, model: str) -> Found | None:
    name = model if model.startswith("models/") else f"models/{model}"
    where = "GET /v1beta/models (inputTokenLimit)"
    entries = payload.get("models") if isinstance(payload, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if (
            isinstance(entry, dict)
            and entry.get("name") == name
            and (size := sane_window(entry.get("inputTokenLimit"), where))
        ):
            return Found(size, where)
    return None


async def discover_models(
    client: httpx.AsyncClient, protocol: str, base_url: str, model: str, api_key: str | None
) -> ServerModels:
    """The models the server offers and the window it reports for ``model`` (each may be
    unknown: an empty tuple, None)."""
    headers = _headers(protocol, api_key)
    base = base_url.rstrip("/")
    root = _root(base)
    listed: Any = None
    models: tuple[str, ...] = ()
    window: Found | None = None
    if protocol.startswith("gemini"):
        catalog = await _get_json(client, "GET", f"{base}/v1beta/models?pageSize=1000", headers)
        models = model_ids(catalog)
        window = _gemini_window(catalog, model)
        if window is None:
            name = model if model.startswith("models/") else f"models/{model}"
            url = f"{base}/v1beta/{quote(name, safe='/')}"
            payload = await _get_json(client, "GET", url, headers)
            where = "GET /v1beta/models (inputTokenLimit)"
            if isinstance(payload, dict) and (
                size := sane_window(payload.get("inputTokenLimit"), where)
            ):
                window = Found(size, where)
    else:
        # Anthropic's list is paged (20 a page unless asked for more).
        url = f"{base}/models" if protocol.startswith("openai") else f"{root}/v1/models?limit=1000"
        asked = "GET /models" if protocol.startswith("openai") else "GET /v1/models"
        listed = await _get_json(client, "GET", url, headers)
        models = model_ids(listed)
        window = _from_model_list(listed, model, asked)
    if _vendor(protocol, base):
        return ServerModels(models, window)
    if window is None:
        window = await _local_window(client, root, model, headers)
    if window is None or not models:
        if listed is None:
            listed = await _get_json(client, "GET", f"{root}/v1/models", headers)
        window = window or _from_model_meta(listed, model)
        models = models or model_ids(listed)
    if not models:
        models = model_ids(await _get_json(client, "GET", f"{root}/api/tags", headers))
    return ServerModels(models, window)


async def _local_window(
    client: httpx.AsyncClient, root: str, model: str, headers: dict[str, str]
) -> Found | None:
    """llama.cpp's ``/props``, then Ollama's ``/api/show``."""
    props = from_llama_props(await _get_json(client, "GET", f"{root}/props", headers))
    if props:
        return Found(props, "llama.cpp's GET /props (n_ctx)")
    show = await _get_json(client, "POST", f"{root}/api/show", headers, {"model": model})
    if shown := from_ollama_show(show):
        return Found(shown, "Ollama's POST /api/show")
    return None


def model_choices(
    current: str,
    protocol: str,
    profiles: Mapping[str, tuple[str, str | None]],
    offered: Sequence[str],
) -> list[tuple[str, str]]:
    """What ``/model`` and ``tui-agent models`` list: the model in use, the configured ones of
    the same protocol (``profiles``: name -> (protocol, model)), then the server's; each once,
    with what it is."""
    choices: dict[str, str] = {}
    if current:
        choices[current] = "in use now"
    for name, (their_protocol, model) in profiles.items():
        if model and model not in choices and their_protocol == protocol:
            choices[model] = f"of the {name} profile"
    for model in offered:
        if model not in choices:
            choices[model] = "offered by the server"
        elif model == current:
            choices[model] = "in use now, offered by the server"
    return list(choices.items())
