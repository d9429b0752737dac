"""The OpenAI Responses protocol (and compatible servers)."""

from .decoder import ResponsesDecoder

__all__ = ["ResponsesDecoder"]
