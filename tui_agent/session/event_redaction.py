"""Redacting the raw provider events of a turn without touching what is opaque.

The rule:

- An event's data that is a JSON object or array is parsed. String values are redacted, except
  opaque ones, which are never looked at: the value (whatever it holds) under a key named
  ``encrypted_content``, ``signature``, ``thoughtSignature`` or ``thought_signature``, and under
  ``data`` in an object whose ``type`` is ``redacted_thinking`` or ``reasoning.encrypted``.
  Inside tool arguments (under ``args``, ``arguments``, ``partialArgs``, ``input``) nothing is
  opaque: those names there are the model's, and may hold anything.
- A secret streamed in pieces (a key the model repeats arrives as many small deltas) is found
  by joining, in order, the strings that sit at the same JSON path in successive events; each
  piece loses the part of the secret it carried, so a replay assembles ``sk-[REDACTED]`` exactly
  as the record's own text says.
- Data that is not JSON is redacted as text.
- Only an event in which something was redacted is re-serialized (compact JSON, same key order);
  every other event keeps its data byte for byte, so signatures and encrypted reasoning round-trip.

Memory: a turn may hold 200,000 events, so nothing is kept per event or per string. The events
are read in passes, each parsing one event at a time: the first keeps, per JSON path, only the
last few characters of its joined strings, enough to see whether the joined text holds one of the
literals every match holds (``Redactor.may_match``). Nearly always none does, and that is all.
Otherwise the joined text of just those paths is built and searched, and a last pass cuts the
matches out of the pieces they came from (counting each piece's offset as it goes) and rebuilds
the events that changed.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from typing import Any

from ..stream import jsonparse
from .records import RawEvent
from .redaction import Redactor, Span

OPAQUE_KEYS = frozenset({"encrypted_content", "signature", "thoughtSignature", "thought_signature"})
OPAQUE_DATA_TYPES = frozenset({"redacted_thinking", "reasoning.encrypted"})
ARGUMENT_KEYS = frozenset({"args", "arguments", "partialArgs", "input"})

JsonPath = tuple[str | int, ...]
Holder = dict[str, Any] | list[Any]
_TEXT_PATH: JsonPath = ("<text>",)


def redact_events(events: Sequence[RawEvent], redactor: Redactor) -> Sequence[RawEvent]:
    """The events, redacted by the rule above: ``events`` itself when nothing changed, else a
    list in which every unchanged event is the same object."""
    paths, names = _suspect_paths(events, redactor)
    if not paths and not names:
        return events
    spans = _spans(events, paths, redactor) if paths else {}
    at = dict.fromkeys(spans, 0)  # each path's offset in its joined text
    first = dict.fromkeys(spans, 0)  # each path's first span that may still touch a piece
    out: list[RawEvent] | None = None
    for index, event in enumerate(events):
        name = names.get(index, event.event)
        data = event.data
        if paths:
            tree = _parse(data)
            changed = False
            for path, holder, key, text in _pieces(data, tree):
                if path not in at:
                    continue
                start = at[path]
                at[path] = start + len(text)
                # Each piece on its own too: joining may hide a match at a piece's edge.
                new = redactor.redact(_cut(text, start, spans[path], first, path))
                if new == text:
                    continue
                changed = True
                if holder is None:
                    data = new
                else:
                    holder[key] = new  # type: ignore[index]
            if changed and tree is not None:
                data = jsonparse.dumps_compact(tree)
        if data is not event.data or name is not event.event:
            out = list(events) if out is None else out
            out[index] = RawEvent(event.t, name, data)
    return events if out is None else out


def _suspect_paths(
    events: Sequence[RawEvent], redactor: Redactor
) -> tuple[set[JsonPath], dict[int, str]]:
    """The paths whose joined strings hold a trigger literal; the event names redacted."""
    width = redactor.trigger_width
    tails: dict[JsonPath, str] = {}  # the last characters of each path's joined strings
    suspect: set[JsonPath] = set()
    names: dict[int, str] = {}
    for index, event in enumerate(events):
        for path, _, _, text in _pieces(event.data, _parse(event.data)):
            if path in suspect:
                continue
            tail = tails.get(path, "") + text
            if redactor.may_match(tail):
                suspect.add(path)
                tails.pop(path, None)
            else:
                tails[path] = tail[-width:]
        name = redactor.redact(event.event)
        if name is not event.event:
            names[index] = name
    return suspect, names


def _spans(
    events: Sequence[RawEvent], paths: set[JsonPath], redactor: Redactor
) -> dict[JsonPath, list[Span]]:
    """The matches in the joined strings of each of ``paths``."""
    joined = {path: io.StringIO() for path in paths}
    for event in events:
        for path, _, _, text in _pieces(event.data, _parse(event.data)):
            buffer = joined.get(path)
            if buffer is not None:
                buffer.write(text)
    return {path: redactor.spans(buffer.getvalue()) for path, buffer in joined.items()}


def _cut(
    text: str, start: int, spans: list[Span], first: dict[JsonPath, int], path: JsonPath
) -> str:
    """The piece ``text``, which starts at ``start`` in its path's joined text, with the spans
    found there applied: the first piece a span touches gets the replacement, the rest lose
    their part of it. ``first[path]`` moves past spans that end before this piece."""
    end = start + len(text)
    index = first[path]
    while index < len(spans) and spans[index][1] <= start:
        index += 1
    first[path] = index
    parts = []
    at = 0
    while end > start and index < len(spans) and spans[index][0] < end:
        lo, hi, replacement = spans[index]
        parts += [text[at : max(lo, start) - start], replacement if lo >= start else ""]
        at = min(hi, end) - start
        if hi > end:
            break
        index += 1
    if not parts:
        return text
    parts.append(text[at:])
    return "".join(parts)


def _pieces(
    data: str, tree: Holder | None
) -> Iterator[tuple[JsonPath, Holder | None, str | int, str]]:
    """The strings of one event's data, each with its path and holder; the whole data, as text,
    when it is not JSON."""
    if tree is None:
        yield _TEXT_PATH, None, 0, data
    else:
        yield from _strings(tree)


_SCALARS = (int, float, bool, type(None))


def _opaque_type(value: Any) -> bool:
    """A ``type`` whose object's ``data`` is opaque; any other value (a list, an object: a
    hostile event may hold anything there) is not one, and is never hashed."""
    return type(value) is str and value in OPAQUE_DATA_TYPES


def _container(kind: type, value: Any) -> bool:
    """A dict or list of a subclass (the common exact types are tested before)."""
    return kind not in _SCALARS and isinstance(value, dict | list)


def _parse(data: str) -> dict[str, Any] | list[Any] | None:
    if data.lstrip()[:1] not in ("{", "["):
        return None
    try:
        tree = jsonparse.loads(data)
    except ValueError:
        return None
    return tree if isinstance(tree, dict | list) else None


def _strings(
    root: dict[str, Any] | list[Any],
) -> list[tuple[JsonPath, Holder, str | int, str]]:
    """Every non-opaque string of a tree with its path and holder. Not in document order: a path
    occurs once in one tree, and each is joined with its own kind in later events only. Every
    pass runs this over every event of a turn, so it tests exact types first (JSON gives only
    dict, list, str and scalars) and builds nothing per node it does not keep."""
    found: list[tuple[JsonPath, Holder, str | int, str]] = []
    add = found.append
    # Iterative, so a deeply nested (hostile) event cannot exhaust the call stack.
    stack: list[tuple[Any, JsonPath, bool]] = [(root, (), False)]
    push, pop = stack.append, stack.pop
    while stack:
        node, path, in_args = pop()
        if type(node) is list:
            for position, value in enumerate(node):
                kind = type(value)
                if kind is str:
                    add(((*path, position), node, position, value))
                elif kind is dict or kind is list or _container(kind, value):
                    push((value, (*path, position), in_args))
            continue
        opaque_data = not in_args and _opaque_type(node.get("type"))
        for key, value in node.items():
            kind = type(value)
            plain = kind is str or kind is dict or kind is list
            if not plain and not _container(kind, value):
                continue  # a number, true, false or null
            if not in_args and (key in OPAQUE_KEYS or (opaque_data and key == "data")):
                continue
            if kind is str:
                add(((*path, key), node, key, value))
            else:
                push((value, (*path, key), in_args or key in ARGUMENT_KEYS))
    return found
