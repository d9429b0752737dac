"""What config reads of each protocol's descriptor (``providers.spec``): its official base URL,
where its key lives, and the checks a profile's ``base_url`` must pass.

Base URLs follow each official SDK: the OpenAI protocols include the API version
(``https://api.openai.com/v1``); Anthropic and Gemini do not, and the app appends
``/v1/messages``, ``/v1beta/interactions`` or ``/v1beta/models/M:streamGenerateContent?alt=sse``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..providers import ProtocolSpec, UnknownProtocolError, protocol_spec
from .errors import ConfigError


def known_protocol(protocol: str) -> ProtocolSpec:
    """The descriptor of ``protocol``; a ConfigError naming the ones we speak when unknown."""
    try:
        return protocol_spec(protocol)
    except UnknownProtocolError as exc:
        raise ConfigError(str(exc)) from None


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
    spec = known_protocol(protocol)
    path = urlsplit(base_url).path
    for suffix in spec.endpoint_suffixes:
        if path.endswith(suffix) or (suffix == "/models" and "/models/" in path):
            raise ConfigError(
                f"base_url {base_url!r} should not end with {suffix!r} for protocol {protocol}: "
                f"give the server's base, like {spec.base_url} (the app appends the rest)"
            )


def is_official_host(protocol: str, base_url: str) -> bool:
    """True when ``base_url`` points at the protocol's own vendor, who may get its default key."""
    official = urlsplit(known_protocol(protocol).base_url)
    given = urlsplit(base_url)
    return given.scheme == official.scheme and given.hostname == official.hostname
