"""The face every protocol decoder shares, and the small helpers they all need."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any

from ..stream.events import ResponseIdentified, StreamEvent, StreamFailure
from ..stream.jsonparse import loads


class StreamDecoder(ABC):
    """Turns one protocol's SSE events into normalized StreamEvents. One instance per turn."""

    def __init__(self) -> None:
        self._identified = False

    @abstractmethod
    def decode(self, event: str, data: str) -> list[StreamEvent]:
        """Decode one complete SSE event (its ``event:`` name and joined ``data``)."""

    def identify(self, response_id: Any, data: str) -> list[StreamEvent]:
        """Report the response id once; a digest of the first event stands in when there is none."""
        if self._identified:
            return []
        self._identified = True
        if not isinstance(response_id, str) or not response_id:
            response_id = "h" + hashlib.sha256(data.encode("utf-8", "replace")).hexdigest()[:16]
        return [ResponseIdentified(response_id)]


def parse_payload(event: str, data: str, known_events: frozenset[str]) -> Any:
    """The event's JSON payload; a StreamFailure for data that should have been JSON; None to skip.

    Empty data, a ``[DONE]`` sentinel and non-JSON data under an event name the protocol does
    not use are skipped; non-JSON data in any other event may have carried arguments, so it
    fails the turn rather than being dropped silently.
    """
    if not data or data.isspace():
        return None
    try:
        return loads(data)
    except ValueError:
        if data.strip() == "[DONE]" or (event not in known_events and event != "message"):
            return None
        return StreamFailure("protocol", f"malformed event data: {data[:80]!r}")


class _Refused(ValueError):
    pass


def _pairs_without_repeats(pairs: list[tuple[str, Any]]) -> None:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _Refused(f"a tool call's arguments repeat the key {key!r}; refused as ambiguous")
        seen.add(key)


def _int_within_64_bits(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**64:
        raise _Refused(
            f"a tool call's arguments hold the integer {text[:24]}{'...' if len(text) > 24 else ''}"
            ", beyond 64 bits; refused, since JSON readers disagree on its value"
        )
    return value


def object_arguments_failure(data: str) -> list[StreamEvent]:
    """For an event that carries a call's arguments as a JSON object: a failure if any object
    in it repeats a key, or any integer in it lies beyond 64 bits. A JSON reader keeps one of
    the repeated values (which one differs between readers) and the fast one reads such an
    integer as a rounded float, so what is shown and run could differ from what the model meant;
    such arguments are refused, as they are in an argument string. (The exact parse here runs
    only for these events; every other event keeps the fast reader.)"""
    try:
        json.loads(data, object_pairs_hook=_pairs_without_repeats, parse_int=_int_within_64_bits)
    except _Refused as exc:
        return [StreamFailure("protocol", str(exc))]
    except (ValueError, RecursionError):
        return [StreamFailure("protocol", "a tool call's arguments could not be checked")]
    return []


def error_message(payload: Any) -> str:
    """The human message of a provider error object, in any of the shapes providers use."""
    if isinstance(payload, dict):
        inner = payload.get("error")
        if isinstance(inner, dict):
            message = inner.get("message") or inner.get("type") or inner.get("code")
            if message:
                return str(message)
        elif isinstance(inner, str) and inner:
            return inner
        message = payload.get("message")
        if message:
            return str(message)
    return "the provider reported an error"


def hashable_key(value: Any) -> int | str | None:
    """A protocol's index or id as a dict key; None for anything else a hostile stream sends."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | str):
        return value
    return None
