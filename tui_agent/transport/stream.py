"""One provider turn over HTTP: send, retry before the first byte, stream, decode, record.

A response that has started streaming is never sent again: a cut, an idle stall past the
watchdog or the turn deadline end the turn as truncated. Cancelling the task that runs
``stream_turn`` closes the response at once (the CancelledError propagates).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from ..providers import ProviderRequest
from ..stream.assembler import TurnAssembler
from ..stream.events import StreamFailure
from ..stream.progress import Progress, RetryWait
from ..stream.sse import DEFAULT_MAX_EVENT_BYTES
from ..stream.turn import TruncatedTurn, TurnResult
from ..turn_reader import DEFAULT_MAX_TURN_BYTES, DEFAULT_MAX_TURN_EVENTS, TurnReader
from .errors import describe_http_error
from .retry import RETRYABLE_STATUS, RetryPolicy, is_retryable

_ERROR_BODY_LIMIT = 64 * 1024
# Raised by httpx before a response's status line arrived (never while a body is read).
_BEFORE_RESPONSE = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
)


@dataclass(frozen=True, slots=True)
class StreamLimits:
    idle_timeout_s: float = 90.0
    turn_deadline_s: float = 600.0
    connect_timeout_s: float = 15.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES  # one SSE event past this ends the turn
    max_turn_events: int = DEFAULT_MAX_TURN_EVENTS  # a turn past either ends truncated ("limit")
    max_turn_bytes: int = DEFAULT_MAX_TURN_BYTES


RawSink = Callable[[float, str, str], None]
REFUSED_RETRIES = 1  # a refused connection is tried once more, not max_retries times


def _refused(exc: BaseException) -> bool:
    """A connection the other side refused (no server at that address), anywhere in the chain."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _origin(url: str) -> str:
    """Scheme, host and port of ``url``: never its path or query (a key may be there)."""
    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{parsed.scheme}://{parsed.host}{port}"


def _failed(message: str) -> TurnResult:
    assembler = TurnAssembler()
    assembler.feed(StreamFailure("error", message))
    return assembler.finish()


async def stream_turn(
    client: httpx.AsyncClient,
    request: ProviderRequest,
    protocol: str,
    provider: str,
    *,
    limits: StreamLimits,
    on_progress: Callable[[list[Progress]], None],
    on_retry: Callable[[RetryWait], None],
    record: RawSink,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> TurnResult:
    """Run one turn; always returns its result (HTTP failures are truncated turns)."""
    secret = request.headers.get("authorization", "").removeprefix("Bearer ") or (
        request.headers.get("x-api-key") or request.headers.get("x-goog-api-key")
    )
    timeout = httpx.Timeout(
        connect=limits.connect_timeout_s, read=limits.idle_timeout_s, write=30.0, pool=30.0
    )
    started = time.monotonic()
    attempt = 0
    readers: list[TurnReader] = []  # the response being read, once one started
    try:
        async with asyncio.timeout(limits.turn_deadline_s):
            while True:
                attempt += 1
                answered = False
                try:
                    async with client.stream(
                        "POST",
                        request.url,
                        headers=request.headers,
                        content=request.content(),
                        timeout=timeout,
                    ) as response:
                        answered = True
                        content_type = response.headers.get("content-type", "")
                        if response.status_code == 200 and not _is_event_stream(content_type):
                            body = await _read_error_body(response)
                            detail = describe_http_error(provider, 200, body, secret)
                            shown = content_type.split(";")[0].strip() or "no content type"
                            return _failed(f"{detail}: answered with {shown}, not an event stream")
                        if response.status_code == 200:
                            reading = _Reading(provider, secret, content_type, limits)
                            return await _read_stream(
                                response,
                                protocol,
                                started,
                                on_progress,
                                record,
                                readers,
                                reading,
                                request.output_limit,
                            )
                        body = await _read_error_body(response)
                        message = describe_http_error(provider, response.status_code, body, secret)
                        if not is_retryable(response.status_code, body):
                            if response.status_code in RETRYABLE_STATUS:
                                message += " (not retried: the server cannot parse this request)"
                            return _failed(message)
                        if attempt > limits.retry.max_retries:
                            return _failed(message)
                        wait = limits.retry.delay(attempt, response.headers)
                        why = f"HTTP {response.status_code}"
                except _BEFORE_RESPONSE as exc:
                    # No byte of a response came (a refused connection, or one reset or closed
                    # before the status line, as a stale keep-alive connection is): safe to re-send.
                    if answered:
                        raise
                    connecting = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
                    why = "cannot connect" if connecting else "connection lost before a response"
                    message = f"{provider}: {why}: {_plain(exc, secret)}"
                    retries = limits.retry.max_retries
                    if _refused(exc):  # nothing listens there: one more try, for a server starting
                        where = _origin(request.url)
                        message = f"{provider}: nothing answered at {where} (connection refused)"
                        retries = min(retries, REFUSED_RETRIES)
                    if attempt > retries:
                        return _failed(message)
                    wait = limits.retry.delay(attempt)
                if time.monotonic() - started + wait >= limits.turn_deadline_s:
                    # Sleeping past the deadline would only hide the real cause behind it.
                    return _failed(
                        f"{message} (not retried: waiting {wait:.1f} s would pass the turn "
                        f"deadline of {limits.turn_deadline_s:g} s)"
                    )
                on_retry(RetryWait(wait, attempt + 1, why))
                await sleep(wait)
    except TimeoutError:
        late = f"{provider}: the turn passed its deadline of {limits.turn_deadline_s:g} s"
        # A stream cut by the deadline keeps what it showed (text, announced calls) for the record.
        return _cut(readers[0].close(), late) if readers else _failed(late)
    except httpx.HTTPError as exc:  # pool, write or protocol errors before the stream began
        return _failed(f"{provider}: request failed: {_plain(exc, secret)}")


async def _read_stream(
    response: httpx.Response,
    protocol: str,
    started: float,
    on_progress: Callable[[list[Progress]], None],
    record: RawSink,
    readers: list[TurnReader],
    reading: _Reading,
    output_limit: int | None,
) -> TurnResult:
    reader = TurnReader(
        protocol,
        lambda name, data: record(time.monotonic() - started, name, data),
        reading.limits.max_event_bytes,
        reading.limits.max_turn_events,
        reading.limits.max_turn_bytes,
        output_limit,
    )
    readers.append(reader)
    head = b""  # the body's start while no event came, to name what came instead
    try:
        async for chunk in response.aiter_bytes():
            if not reader.events_seen and len(head) < _ERROR_BODY_LIMIT:
                head += chunk[: _ERROR_BODY_LIMIT - len(head)]
            progress = reader.feed(chunk)
            if progress:
                on_progress(progress)
            if reader.ended:
                break
    except httpx.ReadTimeout:
        return _cut(reader.close(), "no data from the provider within the idle timeout")
    except httpx.HTTPError as exc:
        return _cut(reader.close(), f"the connection broke: {type(exc).__name__}")
    result = reader.close()
    if not reader.events_seen and isinstance(result, TruncatedTurn) and result.error is None:
        start = head.removeprefix(b"\xef\xbb\xbf").lstrip()
        if start and not start.startswith(_SSE_LINE_STARTS):
            # A whole body without one event (an HTML page or a JSON error labelled, or not
            # labelled, as an event stream): say what came, not just that the turn was cut.
            detail = describe_http_error(reading.provider, 200, head, reading.secret)
            shown = reading.content_type.split(";")[0].strip() or "no content type"
            return _failed(f"{detail}: answered with {shown}, but the body is not an event stream")
    return result


@dataclass(frozen=True, slots=True)
class _Reading:
    """What reading a 200 response needs besides the response itself."""

    provider: str
    secret: str | None
    content_type: str
    limits: StreamLimits


_SSE_LINE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")


def _cut(result: TurnResult, why: str) -> TurnResult:
    if isinstance(result, TruncatedTurn) and result.error is None:
        return TruncatedTurn(
            result.reason,
            result.text,
            result.reasoning,
            result.pending_calls,
            result.stop_reason,
            result.usage,
            why,
            result.response_id,
        )
    return result


async def _read_error_body(response: httpx.Response) -> bytes:
    body = b""
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) >= _ERROR_BODY_LIMIT:
                break
    except httpx.HTTPError:
        pass
    return body[:_ERROR_BODY_LIMIT]


def _plain(exc: Exception, secret: str | None) -> str:
    text = str(exc) or type(exc).__name__
    return text.replace(secret, "[REDACTED]") if secret else text


def _is_event_stream(content_type: str) -> bool:
    # Servers that omit the header still get the benefit of the doubt: SSE decoding decides.
    kind = content_type.split(";")[0].strip().lower()
    return kind in ("", "text/event-stream")
