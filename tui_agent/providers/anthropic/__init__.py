"""The Anthropic Messages protocol."""

from .decoder import MessagesDecoder
from .request import build_request

__all__ = ["MessagesDecoder", "build_request"]
