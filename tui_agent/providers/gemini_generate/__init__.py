"""The Gemini streamGenerateContent protocol (Gemini API and Vertex)."""

from .decoder import GenerateContentDecoder
from .request import build_request

__all__ = ["GenerateContentDecoder", "build_request"]
