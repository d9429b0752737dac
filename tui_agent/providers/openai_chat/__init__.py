"""The OpenAI Chat Completions protocol (and compatible servers)."""

from .decoder import ChatCompletionsDecoder

__all__ = ["ChatCompletionsDecoder"]
