"""The OpenAI Chat Completions protocol (and compatible servers)."""

from ..spec import ProtocolSpec, UsageKeys
from .decoder import ChatCompletionsDecoder
from .request import build_request

PROTOCOL = ProtocolSpec(
    name="openai-chat",
    decoder=ChatCompletionsDecoder,
    build_request=build_request,
    base_url="https://api.openai.com/v1",
    key_envs=("OPENAI_API_KEY",),
    stateful_capable=False,
    endpoint_suffixes=("/chat/completions",),
    usage=UsageKeys(
        totals=("total_tokens",),
        parts=("prompt_tokens", "completion_tokens"),
        output=("completion_tokens",),
    ),
)

__all__ = ["PROTOCOL", "ChatCompletionsDecoder", "build_request"]
