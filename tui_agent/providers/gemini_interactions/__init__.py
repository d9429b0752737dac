"""The Gemini Interactions protocol."""

from .decoder import InteractionsDecoder
from .request import build_request

__all__ = ["InteractionsDecoder", "build_request"]
