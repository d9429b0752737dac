"""The one table of per-protocol defaults: official base URL and where the API key lives.

Base URLs follow each official SDK: the OpenAI protocols include the API version
(``https://api.openai.com/v1``); Anthropic and Gemini do not, and the app appends
``/v1/messages``, ``/v1beta/interactions`` or ``/v1beta/models/M:streamGenerateContent?alt=sse``.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from .errors import ConfigError, UnknownProtocolError


@dataclass(frozen=True)
class ProtocolDefaults:
    base_url: str
    key_envs: tuple[str, ...]  # tried in order; the first that is set wins
    stateful_capable: bool  # has previous_response_id / previous_interaction_id
    endpoint_suffixes: tuple[str, ...]  # what the app appends: a base_url must not end with it


PROTOCOL_DEFAULTS: dict[str, ProtocolDefaults] = {
    "openai-responses": ProtocolDefaults(
        "https://api.openai.com/v1", ("OPENAI_API_KEY",), True, ("/responses",)
    ),
    "openai-chat": ProtocolDefaults(
        "https://api.openai.com/v1", ("OPENAI_API_KEY",), False, ("/chat/completions",)
    ),
    "anthropic": ProtocolDefaults(
        "https://api.anthropic.com", ("ANTHROPIC_API_KEY",), False, ("/v1", "/v1/messages")
    ),
    "gemini-interactions": ProtocolDefaults(
        "https://generativelanguage.googleapis.com",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        True,
        ("/v1beta", "/v1alpha", "/v1", "/interactions"),
    ),
    "gemini": ProtocolDefaults(
        "https://generativelanguage.googleapis.com",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        False,
        ("/v1beta", "/v1alpha", "/v1", "/models"),
    ),
}

PROTOCOL_NAMES: tuple[str, ...] = tuple(PROTOCOL_DEFAULTS)


def protocol_defaults(protocol: str) -> ProtocolDefaults:
    """The defaults of ``protocol``, or UnknownProtocolError listing the five we speak."""
    try:
        return PROTOCOL_DEFAULTS[protocol]
    except KeyError:
        known = ", ".join(PROTOCOL_NAMES)
        raise UnknownProtocolError(f"unknown protocol {protocol!r}; use one of: {known}") from None


def normalize_base_url(url: str) -> str:
    """``url`` without surrounding spaces or trailing slashes; ConfigError unless http(s)://host."""
    cleaned = url.strip().rstrip("/")
    parts = urlsplit(cleaned)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"base_url {url!r} is not an http:// or https:// URL with a host "
            "(for example http://localhost:11434/v1)"
        )
    if parts.query or parts.fragment:
        raise ConfigError(f"base_url {url!r} must not have a query (?...) or fragment (#...)")
    return cleaned


def check_base_url(protocol: str, base_url: str) -> None:
    """Catch the usual mistake of pasting a full endpoint, or a version the app appends itself."""
    defaults = protocol_defaults(protocol)
    path = urlsplit(base_url).path
    for suffix in defaults.endpoint_suffixes:
        if path.endswith(suffix) or (suffix == "/models" and "/models/" in path):
            raise ConfigError(
                f"base_url {base_url!r} should not end with {suffix!r} for protocol {protocol}: "
                f"give the server's base, like {defaults.base_url} (the app appends the rest)"
            )


def is_official_host(protocol: str, base_url: str) -> bool:
    """True when ``base_url`` points at the protocol's own vendor, who may get its default key."""
    official = urlsplit(protocol_defaults(protocol).base_url)
    given = urlsplit(base_url)
    return given.scheme == official.scheme and given.hostname == official.hostname
