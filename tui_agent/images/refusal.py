"""What to tell the person when a server refuses a request that held images: many models and
servers take text only, and their 4xx says so in words of their own (or not at all); a server
error (5xx) counts when it speaks of images."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..conversation import Message, ToolResultMessage, UserMessage

_CLIENT_ERROR = re.compile(r"\bHTTP 4\d\d\b")
# A server error that names images (llama.cpp without its projector answers HTTP 500 "image
# input is not supported - hint: ... provide the mmproj").
_SERVER_ERROR = re.compile(r"\bHTTP 5\d\d\b")
_ABOUT_IMAGES = re.compile(r"image|vision|multimodal|mmproj", re.IGNORECASE)


def image_count(messages: Iterable[Message]) -> int:
    """The images a request built from ``messages`` holds."""
    count = 0
    for message in messages:
        if isinstance(message, UserMessage | ToolResultMessage):
            count += len(message.images)
    return count


def refusal_hint(error: str | None, messages: Iterable[Message]) -> str:
    """A sentence to add to a refused request's error when it held images, else ""."""
    if not error:
        return ""
    refused = _CLIENT_ERROR.search(error) or (
        _SERVER_ERROR.search(error) and _ABOUT_IMAGES.search(error)
    )
    if not refused:
        return ""
    count = image_count(messages)
    if not count:
        return ""
    held = f"{count} image" + ("s" if count > 1 else "")
    return (
        f" (the request held {held}: this model or server may not take images; your message "
        "is kept, so switch to a model that does and retry, or withdraw it and send it without)"
    )
