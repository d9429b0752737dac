"""The provider-neutral conversation that request builders turn into each protocol's shape."""

from .messages import AssistantMessage, Message, ToolResultMessage, UserMessage

__all__ = ["AssistantMessage", "Message", "ToolResultMessage", "UserMessage"]
