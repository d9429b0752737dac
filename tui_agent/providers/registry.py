"""Protocol names, as users write them, and the decoder each one needs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..conversation import Message
from . import anthropic, gemini_generate, gemini_interactions, openai_chat, openai_responses
from .anthropic import MessagesDecoder
from .decoding import StreamDecoder
from .gemini_generate import GenerateContentDecoder
from .gemini_interactions import InteractionsDecoder
from .openai_chat import ChatCompletionsDecoder
from .openai_responses import ResponsesDecoder
from .request import ProviderRequest, RequestSettings, ToolSchema

RequestBuilder = Callable[
    [Sequence[Message], Sequence[ToolSchema], RequestSettings], ProviderRequest
]

PROTOCOLS: dict[str, Callable[[], StreamDecoder]] = {
    "openai-responses": ResponsesDecoder,
    "openai-chat": ChatCompletionsDecoder,
    "anthropic": MessagesDecoder,
    "gemini-interactions": InteractionsDecoder,
    "gemini": GenerateContentDecoder,
}

REQUEST_BUILDERS: dict[str, RequestBuilder] = {
    "openai-responses": openai_responses.build_request,
    "openai-chat": openai_chat.build_request,
    "anthropic": anthropic.build_request,
    "gemini-interactions": gemini_interactions.build_request,
    "gemini": gemini_generate.build_request,
}


class UnknownProtocolError(ValueError):
    """The user named a protocol we do not speak."""

    def __init__(self, name: str) -> None:
        known = ", ".join(PROTOCOLS)
        super().__init__(f"unknown protocol {name!r}; known protocols: {known}")


def decoder_for(protocol: str) -> StreamDecoder:
    """A fresh decoder for one turn of ``protocol``."""
    try:
        factory = PROTOCOLS[protocol]
    except KeyError:
        raise UnknownProtocolError(protocol) from None
    return factory()


def request_builder(protocol: str) -> RequestBuilder:
    """The function that builds ``protocol``'s HTTP request from a conversation."""
    try:
        return REQUEST_BUILDERS[protocol]
    except KeyError:
        raise UnknownProtocolError(protocol) from None
