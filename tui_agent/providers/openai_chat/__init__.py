"""The OpenAI Chat Completions protocol (and compatible servers)."""

from .decoder import ChatCompletionsDecoder
from .request import build_request

__all__ = ["ChatCompletionsDecoder", "build_request"]
