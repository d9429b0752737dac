"""The Gemini Interactions protocol."""

from .decoder import InteractionsDecoder

__all__ = ["InteractionsDecoder"]
