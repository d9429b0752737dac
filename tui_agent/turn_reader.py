"""Bytes of one provider response in, progress out as they arrive, one TurnResult at the end.

The same path serves a live HTTP response, a recorded body and a replayed session: SSE framing,
then the protocol's decoder, then the assembler.

A turn as a whole is bounded: past ``max_turn_events`` events or ``max_turn_bytes`` bytes of
body the stream is dropped and the turn ends truncated with reason "limit" (what it kept so far
is bounded by the limits, and nothing of it runs or is saved as an assistant turn).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from .providers import decoder_for, output_tokens
from .stream.assembler import TurnAssembler
from .stream.events import StreamEvent, StreamFailure
from .stream.progress import Progress
from .stream.sse import DEFAULT_MAX_EVENT_BYTES, EventTooLargeError, SSEFramer
from .stream.turn import TurnResult

DEFAULT_MAX_TURN_EVENTS = 200_000  # above the longest output a model may give (128k tokens)
DEFAULT_MAX_TURN_BYTES = 64 * 1024 * 1024  # four of the largest single events allowed


def _limit_message(what: str, limit: int, setting: str) -> str:
    return f"more than {limit:,} {what} ({setting} in [settings]); the stream was dropped"


class TurnReader:
    """Feed raw byte chunks of one response; ``close()`` gives the turn's one result."""

    def __init__(
        self,
        protocol: str,
        on_event: Callable[[str, str], None] | None = None,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_turn_events: int = DEFAULT_MAX_TURN_EVENTS,
        max_turn_bytes: int = DEFAULT_MAX_TURN_BYTES,
        output_limit: int | None = None,
    ) -> None:
        self._decoder = decoder_for(protocol)
        self._on_event = on_event
        self._framer = SSEFramer(max_event_bytes)
        self._dropped = False
        # With the request's output limit, a turn whose usage shows it spent is truncated.
        self._assembler = TurnAssembler(output_limit, partial(output_tokens, protocol))
        self._max_events = max_turn_events
        self._max_bytes = max_turn_bytes
        self.events_seen = 0
        self.bytes_seen = 0

    def _drop(self, message: str) -> None:
        """The turn grew past one of its limits: stop here, the turn is truncated ("limit")."""
        self._dropped = True
        self._assembler.feed(StreamFailure("limit", message))

    def _over_bytes(self, size: int) -> bool:
        self.bytes_seen += size
        if self.bytes_seen <= self._max_bytes:
            return False
        self._drop(_limit_message("bytes", self._max_bytes, "max_turn_bytes"))
        return True

    def _over_events(self) -> bool:
        if self.events_seen < self._max_events:
            return False
        self._drop(_limit_message("events", self._max_events, "max_turn_events"))
        return True

    @property
    def ended(self) -> bool:
        """True once the terminal event was decoded, or the stream was dropped as too large."""
        return self._assembler.ended or self._dropped

    def feed(self, chunk: bytes) -> list[Progress]:
        """Decode what this chunk completes; returns what may be shown now."""
        assembler = self._assembler
        if assembler.ended or self._dropped:
            return []
        if self._over_bytes(len(chunk)):
            return [*assembler.take_sizes()]
        try:
            completed = self._framer.feed(chunk)
        except EventTooLargeError as exc:
            self._dropped = True
            assembler.feed(StreamFailure("protocol", str(exc)))
            return []
        progress: list[Progress] = []
        on_event = self._on_event
        decode = self._decoder.decode
        feed = assembler.feed
        for sse in completed:
            if self._over_events():
                break
            name, data = sse.event, sse.data
            self.events_seen += 1
            if on_event is not None:
                on_event(name, data)
            try:
                events = decode(name, data)
            except Exception as exc:  # a hostile event must end the turn, never the app
                events = [_undecodable(name, exc)]
            for event in events:
                shown = feed(event)
                if shown is not None:
                    progress.append(shown)
            if assembler.ended:
                break
        return progress + assembler.take_sizes()

    def feed_event(self, name: str, data: str) -> list[Progress]:
        """Decode one complete SSE event (live, or recorded and replayed)."""
        assembler = self._assembler
        if assembler.ended or self._dropped:
            return []
        if self._over_events() or self._over_bytes(len(data)):
            return [*assembler.take_sizes()]
        self.events_seen += 1
        if self._on_event is not None:
            self._on_event(name, data)
        progress: list[Progress] = []
        for event in self._decode(name, data):
            shown = assembler.feed(event)
            if shown is not None:
                progress.append(shown)
        return progress + assembler.take_sizes()

    def _decode(self, name: str, data: str) -> list[StreamEvent]:
        try:
            return self._decoder.decode(name, data)
        except Exception as exc:  # a hostile event must end the turn, never the app
            return [_undecodable(name, exc)]

    def close(self) -> TurnResult:
        """End of the body. Complete only if the terminal event arrived and ended normally."""
        if not self.ended:
            for sse in self._framer.close():
                self.feed_event(sse.event, sse.data)
        return self._assembler.finish()


def assemble(protocol: str, chunks: Iterable[bytes], output_limit: int | None = None) -> TurnResult:
    """Decode a whole response body, given as byte chunks split anywhere, into its turn result
    (truncated when the usage shows ``output_limit``, the request's, spent)."""
    reader = TurnReader(protocol, output_limit=output_limit)
    feed = reader.feed
    for chunk in chunks:
        feed(chunk)
    return reader.close()


def _undecodable(name: str, exc: Exception) -> StreamFailure:
    return StreamFailure("protocol", f"undecodable {name} event ({type(exc).__name__})")
