"""One package per wire protocol: the request it sends and the decoder for what comes back."""

from __future__ import annotations

from .registry import (
    PROTOCOLS,
    UnknownProtocolError,
    decoder_for,
    input_tokens,
    output_tokens,
    protocol_spec,
    request_builder,
    tokens_used,
)
from .request import ProviderRequest, RequestSettings, ToolSchema
from .spec import ProtocolSpec

__all__ = [
    "PROTOCOLS",
    "ProtocolSpec",
    "ProviderRequest",
    "RequestSettings",
    "ToolSchema",
    "UnknownProtocolError",
    "decoder_for",
    "input_tokens",
    "output_tokens",
    "protocol_spec",
    "request_builder",
    "tokens_used",
]
