"""The Anthropic Messages protocol."""

from .decoder import MessagesDecoder

__all__ = ["MessagesDecoder"]
