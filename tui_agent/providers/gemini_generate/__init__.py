"""The Gemini streamGenerateContent protocol (Gemini API and Vertex)."""

from .decoder import GenerateContentDecoder

__all__ = ["GenerateContentDecoder"]
