"""Token estimates for what no provider has counted yet (a message about to be sent, a tool's
result, a summary). Deliberately a little high for English and code: the estimate decides when to
compact and how much tool output fits, and overshooting costs less than overflowing."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence

from ..conversation import AssistantMessage, Message, ToolResultMessage, UserMessage
from ..providers import ToolSchema

BYTES_PER_TOKEN = 3.5
MESSAGE_OVERHEAD = 4  # role markers and separators a chat template adds per message


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` will take, estimated from its UTF-8 size."""
    if not text:
        return 0
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)


def token_bytes(tokens: int) -> int:
    """The UTF-8 bytes that ``tokens`` estimated tokens stand for (the inverse of the above)."""
    return max(0, int(tokens * BYTES_PER_TOKEN))


def estimate_message(message: Message) -> int:
    if isinstance(message, UserMessage):
        return MESSAGE_OVERHEAD + sum(estimate_tokens(block) for block in message.blocks())
    if isinstance(message, ToolResultMessage):
        return MESSAGE_OVERHEAD + estimate_tokens(message.output) + estimate_tokens(message.call_id)
    assert isinstance(message, AssistantMessage)
    calls = sum(
        MESSAGE_OVERHEAD + estimate_tokens(c.name) + estimate_tokens(c.arguments)
        for c in message.tool_calls
    )
    return MESSAGE_OVERHEAD + estimate_tokens(message.text) + calls


def estimate_messages(messages: Iterable[Message]) -> int:
    return sum(estimate_message(m) for m in messages)


def estimate_fixed(system: str | None, tools: Sequence[ToolSchema]) -> int:
    """What every request carries besides the conversation: the system prompt and the tools."""
    schema = sum(
        estimate_tokens(t.name)
        + estimate_tokens(t.description)
        + estimate_tokens(json.dumps(t.parameters, separators=(",", ":")))
        for t in tools
    )
    return estimate_tokens(system or "") + schema + MESSAGE_OVERHEAD
