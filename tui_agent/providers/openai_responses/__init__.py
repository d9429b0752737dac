"""The OpenAI Responses protocol (and compatible servers)."""

from ..spec import ProtocolSpec, UsageKeys
from .decoder import ResponsesDecoder
from .request import build_request

PROTOCOL = ProtocolSpec(
    name="openai-responses",
    decoder=ResponsesDecoder,
    build_request=build_request,
    base_url="https://api.openai.com/v1",
    key_envs=("OPENAI_API_KEY",),
    stateful_capable=True,
    endpoint_suffixes=("/responses",),
    usage=UsageKeys(
        totals=("total_tokens",),
        parts=("input_tokens", "output_tokens"),
        output=("output_tokens",),
    ),
)

__all__ = ["PROTOCOL", "ResponsesDecoder", "build_request"]
