"""The face every protocol decoder shares, and the small helpers they all need."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from typing import Any

from ..stream.events import ResponseIdentified, StreamEvent, StreamFailure
from ..stream.jsonparse import RepeatedKeys, loads, loads_exact


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


def parse_payload(event: str, data: str, known_events: frozenset[str], exact: bool = False) -> Any:
    """The event's JSON payload; a StreamFailure for data that should have been JSON; None to skip.

    Empty data, a ``[DONE]`` sentinel and non-JSON data under an event name the protocol does
    not use are skipped; non-JSON data in any other event may have carried arguments, so it
    fails the turn rather than being dropped silently. ``exact`` (for an event that may carry a
    call's arguments as an object, see ``may_hold_object``) keeps big integers and repeated keys.
    """
    if not data or data.isspace():
        return None
    try:
        return loads_exact(data) if exact else loads(data)
    except ValueError:
        if data.strip() == "[DONE]" or (event not in known_events and event != "message"):
            return None
        return StreamFailure("protocol", f"malformed event data: {data[:80]!r}")


def may_hold_object(data: str, *quoted_fields: str) -> bool:
    """Whether ``data`` may give one of the fields (given with their quotes: ``'"input"'``) an
    object or array value: such an event is parsed exactly (``parse_payload(exact=True)``), so
    arguments sent as an object keep their big integers and repeated keys for the strict
    argument parse to refuse by name. A cheap test on the text, run on every event; a field
    spelled with escapes, or followed by more than a few dozen blanks, slips past it and meets
    the backstop, ``object_arguments_failure``."""
    for quoted in quoted_fields:
        at = data.find(quoted)
        while at >= 0:
            at += len(quoted)
            # The usual case, a string value (compact or spaced), is passed over at once.
            if not (data.startswith(':"', at) or data.startswith(': "', at)):
                after = data[at : at + 40].lstrip()
                if after[:1] == ":" and after[1:].lstrip()[:1] in ("{", "["):
                    return True
            at = data.find(quoted, at)
    return False


def object_arguments_failure(data: str) -> list[StreamEvent]:
    """The backstop for an event that carried a call's arguments as a JSON object but was read
    by the fast parser (``may_hold_object`` missed it): a failure if any object in it repeats a
    key, or any integer in it lies beyond 64 bits. A JSON reader keeps one of the repeated
    values (which one differs between readers) and the fast one reads such an integer as a
    rounded float, so what is shown and run could differ from what the model meant; the turn
    is refused."""
    try:
        value = loads_exact(data)
    except ValueError:
        return [StreamFailure("protocol", "a tool call's arguments could not be checked")]
    problem = _ambiguity(value)
    return [StreamFailure("protocol", problem)] if problem else []


def _first_repeat(item: RepeatedKeys) -> str:
    seen: set[str] = set()
    for key, _ in item.pairs:
        if key in seen:
            return key
        seen.add(key)
    return ""


def _ambiguity(value: Any) -> str | None:
    """What makes ``value`` (read by ``loads_exact``) read differently by other JSON readers."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, RepeatedKeys):
            key = _first_repeat(item)
            return f"a tool call's arguments repeat the key {key!r}; refused as ambiguous"
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif type(item) is int and not -(2**63) <= item < 2**64:
            text = str(item)
            shown = text[:24] + ("..." if len(text) > 24 else "")
            return (
                f"a tool call's arguments hold the integer {shown}, beyond 64 bits; refused, "
                "since JSON readers disagree on its value"
            )
    return None


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
