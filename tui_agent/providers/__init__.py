"""One package per wire protocol: the request it sends and the decoder for what comes back."""

from __future__ import annotations

from .decoding import StreamDecoder
from .registry import (
    PROTOCOLS,
    UnknownProtocolError,
    decoder_for,
    protocol_spec,
    request_builder,
    tokens_used,
)
from .request import ProviderRequest, RequestSettings, ToolSchema
from .spec import ProtocolSpec, RequestBuilder, UsageKeys

__all__ = [
    "PROTOCOLS",
    "ProtocolSpec",
    "ProviderRequest",
    "RequestBuilder",
    "RequestSettings",
    "StreamDecoder",
    "ToolSchema",
    "UnknownProtocolError",
    "UsageKeys",
    "decoder_for",
    "protocol_spec",
    "request_builder",
    "tokens_used",
]
