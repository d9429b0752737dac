"""The Anthropic Messages protocol."""

from ..spec import ProtocolSpec, UsageKeys
from .decoder import MessagesDecoder
from .request import build_request

PROTOCOL = ProtocolSpec(
    name="anthropic",
    decoder=MessagesDecoder,
    build_request=build_request,
    base_url="https://api.anthropic.com",
    key_envs=("ANTHROPIC_API_KEY",),
    stateful_capable=False,
    endpoint_suffixes=("/v1", "/v1/messages"),
    # No total: cached input is counted apart from input_tokens, so every part is summed.
    usage=UsageKeys(
        totals=(),
        parts=(
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        ),
        output=("output_tokens",),
    ),
)

__all__ = ["PROTOCOL", "MessagesDecoder", "build_request"]
