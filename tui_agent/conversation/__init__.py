"""The provider-neutral conversation that request builders turn into each protocol's shape."""

from .messages import AssistantMessage, Attachment, Message, ToolResultMessage, UserMessage

__all__ = ["AssistantMessage", "Attachment", "Message", "ToolResultMessage", "UserMessage"]
