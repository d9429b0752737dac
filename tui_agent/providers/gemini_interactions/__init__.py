"""The Gemini Interactions protocol."""

from ..spec import ProtocolSpec, UsageKeys
from .decoder import InteractionsDecoder
from .request import build_request

PROTOCOL = ProtocolSpec(
    name="gemini-interactions",
    decoder=InteractionsDecoder,
    build_request=build_request,
    base_url="https://generativelanguage.googleapis.com",
    key_envs=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    stateful_capable=True,
    endpoint_suffixes=("/v1beta", "/v1alpha", "/v1", "/interactions"),
    usage=UsageKeys(
        totals=("total_tokens",),
        parts=(
            "total_input_tokens",
            "total_output_tokens",
            "total_thought_tokens",
            "total_tool_use_tokens",
        ),
        output=("total_output_tokens", "total_thought_tokens"),
    ),
)

__all__ = ["PROTOCOL", "InteractionsDecoder", "build_request"]
