"""Protocol names, as users write them, and the decoder each one needs."""

from __future__ import annotations

from collections.abc import Callable

from .anthropic import MessagesDecoder
from .decoding import StreamDecoder
from .gemini_generate import GenerateContentDecoder
from .gemini_interactions import InteractionsDecoder
from .openai_chat import ChatCompletionsDecoder
from .openai_responses import ResponsesDecoder

PROTOCOLS: dict[str, Callable[[], StreamDecoder]] = {
    "openai-responses": ResponsesDecoder,
    "openai-chat": ChatCompletionsDecoder,
    "anthropic": MessagesDecoder,
    "gemini-interactions": InteractionsDecoder,
    "gemini": GenerateContentDecoder,
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
