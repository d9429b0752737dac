"""One package per wire protocol: the request it sends and the decoder for what comes back."""

from __future__ import annotations

from .decoding import StreamDecoder
from .registry import PROTOCOLS, UnknownProtocolError, decoder_for

__all__ = ["PROTOCOLS", "StreamDecoder", "UnknownProtocolError", "decoder_for"]
