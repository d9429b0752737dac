"""One package per wire protocol: the request it sends and the decoder for what comes back."""

from __future__ import annotations

from .decoding import StreamDecoder
from .registry import PROTOCOLS, UnknownProtocolError, decoder_for, request_builder
from .request import ProviderRequest, RequestSettings, ToolSchema

__all__ = [
    "PROTOCOLS",
    "ProviderRequest",
    "RequestSettings",
    "StreamDecoder",
    "ToolSchema",
    "UnknownProtocolError",
    "decoder_for",
    "request_builder",
]
