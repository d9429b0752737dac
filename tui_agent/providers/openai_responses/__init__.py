"""The OpenAI Responses protocol (and compatible servers)."""

from .decoder import ResponsesDecoder
from .request import build_request

__all__ = ["ResponsesDecoder", "build_request"]
