"""The official SDKs' own stream accumulators, run offline over the bytes of a response body.

Each runner builds a real SDK client whose HTTP transport answers the one request with the given
byte chunks (no network), calls the SDK's streaming helper and reads its accumulated final object.
So the whole SDK path runs: its SSE decoder, its event models and its accumulator:

- ``openai-chat``: ``client.chat.completions.stream()`` -> ``ChatCompletionStreamState``;
- ``openai-responses``: ``client.responses.stream()`` -> ``ResponseStreamState``;
- ``anthropic``: ``client.messages.stream()`` -> ``MessageStream`` (``accumulate_event``).

The result is reduced to what ``tui_agent.assemble`` reports, so the two can be compared.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import anthropic
import openai

_SSE_HEADERS = {"content-type": "text/event-stream"}


@dataclass(frozen=True)
class SdkCall:
    """A client tool call as the SDK accumulated it.

    ``arguments`` is the argument string for OpenAI; Anthropic's SDK keeps only the parsed
    ``input`` object, so there it is that object.
    """

    id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class SdkTurn:
    text: str
    reasoning: str
    tool_calls: tuple[SdkCall, ...]
    stop_reason: str | None


def _http_module(sdk: ModuleType) -> ModuleType:
    """The HTTP library the SDK itself is built on (``httpx``, or ``httpx2`` in newer releases)."""
    base_client = importlib.import_module(f"{sdk.__name__}._base_client")
    for name in ("httpx2", "httpx"):
        module = getattr(base_client, name, None)
        if isinstance(module, ModuleType):
            return module
    raise RuntimeError(f"cannot tell which HTTP library {sdk.__name__} uses")


def _offline_http_client(sdk: ModuleType, chunks: Iterable[bytes]) -> Any:
    """An HTTP client for ``sdk`` whose every response streams ``chunks`` as an SSE body."""
    http = _http_module(sdk)
    parts = list(chunks)

    def respond(request: Any) -> Any:
        return http.Response(200, headers=_SSE_HEADERS, content=iter(parts))

    return http.Client(transport=http.MockTransport(respond))


def openai_client(chunks: Iterable[bytes]) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="test-key",
        base_url="http://sdk.invalid/v1",
        max_retries=0,
        http_client=_offline_http_client(openai, chunks),
    )


def anthropic_client(chunks: Iterable[bytes]) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="test-key",
        base_url="http://sdk.invalid",
        max_retries=0,
        http_client=_offline_http_client(anthropic, chunks),
    )


@contextlib.contextmanager
def chat_stream(chunks: Iterable[bytes]) -> Iterator[Any]:
    """``client.chat.completions.stream(...)`` over ``chunks``, entered."""
    client = openai_client(chunks)
    with client.chat.completions.stream(
        model="differential-test", messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        yield stream


@contextlib.contextmanager
def responses_stream(chunks: Iterable[bytes]) -> Iterator[Any]:
    """``client.responses.stream(...)`` over ``chunks``, entered."""
    client = openai_client(chunks)
    with client.responses.stream(model="differential-test", input="hi") as stream:
        yield stream


@contextlib.contextmanager
def messages_stream(chunks: Iterable[bytes]) -> Iterator[Any]:
    """``client.messages.stream(...)`` over ``chunks``, entered."""
    client = anthropic_client(chunks)
    with client.messages.stream(
        model="differential-test", max_tokens=1024, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        yield stream


def openai_chat(chunks: Iterable[bytes]) -> SdkTurn:
    with chat_stream(chunks) as stream:
        completion = stream.get_final_completion()
    choice = completion.choices[0]
    message = choice.message
    extra = message.model_extra or {}
    # Compatible servers' reasoning fields are not in the SDK's model; it accumulates them as
    # extra string fields, the same way as `content`.
    reasoning = extra.get("reasoning_content") or extra.get("reasoning") or ""
    calls = tuple(
        SdkCall(call.id, call.function.name, call.function.arguments)
        for call in message.tool_calls or []
    )
    text = (message.content or "") + (message.refusal or "")
    return SdkTurn(text, reasoning, calls, choice.finish_reason)


def openai_responses(chunks: Iterable[bytes]) -> SdkTurn:
    with responses_stream(chunks) as stream:
        response = stream.get_final_response()
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[SdkCall] = []
    for item in response.output:
        if item.type == "message":
            for part in item.content:
                text.append(part.text if part.type == "output_text" else part.refusal)
        elif item.type == "reasoning":
            reasoning += [part.text for part in item.summary]
            reasoning += [part.text for part in item.content or []]
        elif item.type == "function_call":
            calls.append(SdkCall(item.call_id, item.name, item.arguments))
    return SdkTurn("".join(text), "".join(reasoning), tuple(calls), response.status)


def anthropic_messages(chunks: Iterable[bytes]) -> SdkTurn:
    with messages_stream(chunks) as stream:
        message = stream.get_final_message()
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[SdkCall] = []
    for block in message.content:
        if block.type == "text":
            text.append(block.text)
        elif block.type == "thinking":
            reasoning.append(block.thinking)
        elif block.type == "tool_use":
            calls.append(SdkCall(block.id, block.name, block.input))
    return SdkTurn("".join(text), "".join(reasoning), tuple(calls), message.stop_reason)


SDK_ACCUMULATORS: dict[str, Callable[[Iterable[bytes]], SdkTurn]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic": anthropic_messages,
}
