"""The Gemini streamGenerateContent protocol (Gemini API and Vertex)."""

from ..spec import ProtocolSpec, UsageKeys
from .decoder import GenerateContentDecoder
from .request import build_request

PROTOCOL = ProtocolSpec(
    name="gemini",
    decoder=GenerateContentDecoder,
    build_request=build_request,
    base_url="https://generativelanguage.googleapis.com",
    key_envs=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    stateful_capable=False,
    endpoint_suffixes=("/v1beta", "/v1alpha", "/v1", "/models"),
    # usageMetadata, repeated on every chunk (the last one wins when merged).
    usage=UsageKeys(
        totals=("totalTokenCount",),
        parts=(
            "promptTokenCount",
            "candidatesTokenCount",
            "thoughtsTokenCount",
            "toolUsePromptTokenCount",
        ),
        output=("candidatesTokenCount", "thoughtsTokenCount"),
    ),
)

__all__ = ["PROTOCOL", "GenerateContentDecoder", "build_request"]
