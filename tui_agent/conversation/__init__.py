"""The provider-neutral conversation that request builders turn into each protocol's shape."""

from .messages import (
    AssistantMessage,
    Attachment,
    ImagePart,
    Message,
    ToolResultMessage,
    UserMessage,
    attachment_label,
    shown_size,
)

__all__ = [
    "AssistantMessage",
    "Attachment",
    "ImagePart",
    "Message",
    "ToolResultMessage",
    "UserMessage",
    "attachment_label",
    "shown_size",
]
