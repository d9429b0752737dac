"""SSE framing from raw bytes, the same for live responses and recorded bodies.

Bytes become text through an incremental UTF-8 decoder (a character split across reads is
joined, invalid bytes become U+FFFD), text becomes lines on CR, LF and CRLF only, and lines
become events through httpx-sse's decoder. An event exists only once its blank line arrived:
an event cut off at the end of the body is not an event.
"""

from __future__ import annotations

import codecs

from httpx_sse import ServerSentEvent
from httpx_sse._decoders import SSEDecoder, SSELineDecoder

_BOM = "\ufeff"
DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
_SLICE = 64 * 1024  # the granularity of the size limit (at most a 16th of it)


class EventTooLargeError(ValueError):
    """One SSE event grew past the limit; reading on would hold it all in memory."""

    def __init__(self, limit: int) -> None:
        size = f"{limit / 2**20:g} MB" if limit >= 2**20 else f"{limit} bytes"
        super().__init__(f"an event larger than {size}: the stream was dropped")


class SSEFramer:
    """Feed byte chunks of any size; get back the complete events they finish."""

    __slots__ = ("_events", "_limit", "_lines", "_pending", "_slice", "_started", "_utf8")

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._lines = SSELineDecoder()
        self._events = SSEDecoder()
        self._started = False
        self._limit = max_event_bytes
        self._slice = max(1, min(_SLICE, max_event_bytes // 16))
        self._pending = 0  # bytes received since the last complete event (within a read)

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events this chunk completes. Raises EventTooLargeError past the size limit."""
        size = self._slice
        if len(chunk) <= size:
            return self._feed(chunk)
        # A big chunk may hold many small events: the limit is for one event, so count in
        # slices, each of which can end the event the count is about.
        events = []
        view = memoryview(chunk)
        for start in range(0, len(chunk), size):
            events += self._feed(bytes(view[start : start + size]))
        return events

    def _feed(self, chunk: bytes) -> list[ServerSentEvent]:
        self._pending += len(chunk)
        if self._pending > self._limit:
            self._lines = SSELineDecoder()  # let the partial event go: memory stays bounded
            self._events = SSEDecoder()
            raise EventTooLargeError(self._limit)
        text = self._utf8.decode(chunk)
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith(_BOM):
                text = text[1:]
                if not text:
                    return []
        lines = self._lines.decode(text)
        if lines:
            events = self._decode_lines(lines)
            if events or "" in lines:  # a blank line ends an event, even one with no data
                self._pending = 0
            return events
        return []

    def close(self) -> list[ServerSentEvent]:
        """End of body: a line ended by a final CR still counts; an unterminated line does not."""
        tail = self._utf8.decode(b"", final=True)
        events = self._decode_lines(self._lines.decode(tail)) if tail else []
        if self._lines.trailing_cr:
            events.extend(self._decode_lines(self._lines.flush()))
        return events

    def _decode_lines(self, lines: list[str]) -> list[ServerSentEvent]:
        decode = self._events.decode
        events = []
        for line in lines:
            event = decode(line)
            if event is not None:
                events.append(event)
        return events
