"""The protocols we speak, by the name users write, each read from its provider package's
descriptor (``spec.ProtocolSpec``); everything else about a protocol is asked of these."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .anthropic import PROTOCOL as ANTHROPIC
from .decoding import StreamDecoder
from .gemini_generate import PROTOCOL as GEMINI_GENERATE
from .gemini_interactions import PROTOCOL as GEMINI_INTERACTIONS
from .openai_chat import PROTOCOL as OPENAI_CHAT
from .openai_responses import PROTOCOL as OPENAI_RESPONSES
from .spec import ProtocolSpec, RequestBuilder

PROTOCOLS: dict[str, ProtocolSpec] = {
    spec.name: spec
    for spec in (
        OPENAI_RESPONSES,
        OPENAI_CHAT,
        ANTHROPIC,
        GEMINI_INTERACTIONS,
        GEMINI_GENERATE,
    )
}


class UnknownProtocolError(ValueError):
    """A protocol name we do not speak (from config.toml, a flag, or a saved session)."""

    def __init__(self, name: str) -> None:
        known = ", ".join(PROTOCOLS)
        super().__init__(f"unknown protocol {name!r}; use one of: {known}")


def protocol_spec(protocol: str) -> ProtocolSpec:
    """The descriptor of ``protocol``, or UnknownProtocolError naming the ones we speak."""
    try:
        return PROTOCOLS[protocol]
    except KeyError:
        raise UnknownProtocolError(protocol) from None


def decoder_for(protocol: str) -> StreamDecoder:
    """A fresh decoder for one turn of ``protocol``."""
    return protocol_spec(protocol).decoder()


def request_builder(protocol: str) -> RequestBuilder:
    """The function that builds ``protocol``'s HTTP request from a conversation."""
    return protocol_spec(protocol).build_request


def tokens_used(protocol: str, usage: Mapping[str, Any] | None) -> int:
    """The tokens one turn's usage accounts for, read as ``protocol`` reports it; 0 when it says
    nothing usable or the protocol is unknown (a session file from elsewhere)."""
    spec = PROTOCOLS.get(protocol)
    return spec.usage.tokens(usage) if spec is not None else 0


def input_tokens(protocol: str, usage: Mapping[str, Any] | None) -> int:
    """The tokens of the request itself in one turn's usage (what was sent, cached or not):
    the whole count less the output; 0 when the usage says nothing usable."""
    spec = PROTOCOLS.get(protocol)
    if spec is None:
        return 0
    return max(0, spec.usage.tokens(usage) - spec.usage.output_tokens(usage))


def output_tokens(protocol: str, usage: Mapping[str, Any] | None) -> int:
    """The output tokens one turn's usage reports, read as ``protocol`` reports them (the
    counts its output limit bounds); 0 when it says nothing usable or the protocol is unknown."""
    spec = PROTOCOLS.get(protocol)
    return spec.usage.output_tokens(usage) if spec is not None else 0
