"""What every protocol's request builder takes and returns."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..conversation import AssistantMessage, Message
from ..stream.jsonparse import is_json_object, loads, loads_exact

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """A tool as the provider sees it: name, description, JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RequestSettings:
    model: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    system: str | None = None
    max_tokens: int = 8192
    options: dict[str, Any] = field(default_factory=dict)  # merged into the body as given
    stateful: bool = False  # previous_response_id / previous_interaction_id where offered
    effort: str | None = None  # low, medium, high (effort.py); None: the model's own default
    server_tools: tuple[str, ...] = ()  # the provider's own tools switched on (server_tools.py)


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    url: str
    headers: dict[str, str] = field(repr=False)
    body: dict[str, Any]
    output_limit: int | None = None  # the output budget the body asks for, in tokens

    def content(self) -> bytes:
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8", "surrogatepass")


def arguments_object(arguments: str) -> dict[str, Any]:
    """A call's arguments as an object for protocols that send objects back; {} if unusable."""
    try:
        value = loads_exact(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def wire_arguments(arguments: str) -> str:
    """A call's arguments as they go back in a request that sends them as text: unchanged when
    they are one JSON object, else ``{}``. A call the model sent with arguments that never parsed
    (cut mid-string, not JSON at all) must not poison the history: servers that re-parse earlier
    calls (llama.cpp renders them through its chat template) refuse the whole request (HTTP 500)
    for every later turn. What the model sent stays in the session record and in the error the
    tool result carries."""
    return arguments if is_json_object(arguments) else "{}"


def sse_payloads(raw: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """The JSON objects of recorded SSE events, skipping what is not a JSON object."""
    out = []
    for _event, data in raw:
        try:
            value = loads(data)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def rebuilt_from_stream(
    rebuild: Callable[[AssistantMessage], list[dict[str, Any]]], message: AssistantMessage
) -> list[dict[str, Any]]:
    """What ``rebuild`` makes of a message's recorded events, or [] when they hold a shape it
    cannot read: the turn was complete, but a field of some event has another type than the
    protocol's (a hostile or broken server). The request is then built from the message's text
    and calls, never refused: one bad event must not end the conversation, then or on resume."""
    try:
        return rebuild(message)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError):
        log.warning("a recorded turn could not be rebuilt from its events", exc_info=True)
        return []


def stateful_tail(messages: Sequence[Message], protocol: str) -> tuple[str | None, list[Message]]:
    """For a stateful request: the id of the last assistant turn, when this protocol made it,
    and the messages after it; otherwise no id and the whole history."""
    history = list(messages)
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if isinstance(message, AssistantMessage):
            if message.protocol == protocol and message.response_id:
                return message.response_id, history[index + 1 :]
            break
    return None, history
