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
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..stream import jsonparse
from .records import RawEvent
from .redaction import Redactor, Span

OPAQUE_KEYS = frozenset({"encrypted_content", "signature", "thoughtSignature", "thought_signature"})
OPAQUE_DATA_TYPES = frozenset({"redacted_thinking", "reasoning.encrypted"})
ARGUMENT_KEYS = frozenset({"args", "arguments", "partialArgs", "input"})

_TEXT_PATH: tuple[str | int, ...] = ("<text>",)


@dataclass(slots=True)
class _Leaf:
    event: int
    holder: dict[str, Any] | list[Any] | None  # None: the event's whole data is this text
    key: str | int
    text: str


def redact_events(events: Sequence[RawEvent], redactor: Redactor) -> list[RawEvent]:
    """The events, redacted by the rule above; an unchanged event is the same object."""
    trees: list[Any] = []
    streams: dict[tuple[str | int, ...], list[_Leaf]] = {}
    for index, event in enumerate(events):
        tree = _parse(event.data)
        trees.append(tree)
        if tree is None:
            streams.setdefault(_TEXT_PATH, []).append(_Leaf(index, None, 0, event.data))
        else:
            for path, holder, key, text in _strings(tree):
                streams.setdefault(path, []).append(_Leaf(index, holder, key, text))

    changed: set[int] = set()
    new_data: dict[int, str] = {}
    for leaves in streams.values():
        texts = [leaf.text for leaf in leaves]
        joined = "".join(texts)
        spans = redactor.spans(joined)
        new_texts = _cut(texts, spans) if spans else texts
        for leaf, new in zip(leaves, new_texts, strict=True):
            # Each piece on its own too: joining may hide a match at a piece's edge.
            new = redactor.redact(new)
            if new == leaf.text:
                continue
            changed.add(leaf.event)
            if leaf.holder is None:
                new_data[leaf.event] = new
            else:
                leaf.holder[leaf.key] = new  # type: ignore[index]

    out = list(events)
    for index in changed:
        data = new_data.get(index)
        if data is None:
            data = jsonparse.dumps_compact(trees[index])
        out[index] = events[index].model_copy(update={"data": data})
    for index, event in enumerate(out):
        name = redactor.redact(event.event)
        if name is not event.event:
            out[index] = event.model_copy(update={"event": name})
    return out


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
) -> list[tuple[tuple[str | int, ...], dict[str, Any] | list[Any], str | int, str]]:
    """Every non-opaque string of a tree, in document order, with its path and holder."""
    found: list[tuple[tuple[str | int, ...], dict[str, Any] | list[Any], str | int, str]] = []
    # Iterative, so a deeply nested (hostile) event cannot exhaust the call stack.
    stack: list[tuple[Any, tuple[str | int, ...], bool]] = [(root, (), False)]
    while stack:
        node, path, in_args = stack.pop()
        children: list[tuple[Any, tuple[str | int, ...], bool]] = []
        if isinstance(node, dict):
            opaque_data = not in_args and node.get("type") in OPAQUE_DATA_TYPES
            for key, value in node.items():
                if not in_args and (key in OPAQUE_KEYS or (opaque_data and key == "data")):
                    continue
                if isinstance(value, str):
                    found.append(((*path, key), node, key, value))
                elif isinstance(value, dict | list):
                    children.append((value, (*path, key), in_args or key in ARGUMENT_KEYS))
        else:
            for position, value in enumerate(node):
                if isinstance(value, str):
                    found.append(((*path, position), node, position, value))
                elif isinstance(value, dict | list):
                    children.append((value, (*path, position), in_args))
        stack.extend(reversed(children))
    return found


def _cut(texts: list[str], spans: list[Span]) -> list[str]:
    """Apply spans found in the joined texts to the pieces they came from.

    The first piece a span touches gets the replacement; the rest lose their part of it.
    """
    starts = []
    at = 0
    for text in texts:
        starts.append(at)
        at += len(text)
    edits: list[list[Span]] = [[] for _ in texts]
    for start, end, replacement in spans:
        piece = bisect.bisect_right(starts, start) - 1
        first = True
        while piece < len(texts) and starts[piece] < end:
            lo = max(start, starts[piece]) - starts[piece]
            hi = min(end, starts[piece] + len(texts[piece])) - starts[piece]
            if hi > lo:
                edits[piece].append((lo, hi, replacement if first else ""))
                first = False
            piece += 1
    out = []
    for text, piece_edits in zip(texts, edits, strict=True):
        if not piece_edits:
            out.append(text)
            continue
        parts = []
        at = 0
        for lo, hi, replacement in piece_edits:
            parts += [text[at:lo], replacement]
            at = hi
        parts.append(text[at:])
        out.append("".join(parts))
    return out
