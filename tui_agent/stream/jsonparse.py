"""Fast JSON parsing for stream events, exact for the rare inputs the fast parser refuses."""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(text: str) -> Any:
    """Parse JSON text; orjson first, the stdlib for what it refuses (lone surrogates, NaN)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def loads_exact(text: str) -> Any:
    """Parse JSON text with the stdlib: slower, but every integer exact (orjson reads one beyond
    64 bits as a rounded float). For a call's arguments, never for every event."""
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def is_json(text: str) -> bool:
    """True when ``text`` is one complete JSON value (surrounding whitespace allowed)."""
    try:
        loads(text)
    except ValueError:
        return False
    return True


def dumps_compact(value: Any) -> str:
    """The one serialization for arguments a provider sent as an object: exactly
    ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, made by orjson when the
    two agree (no floats, whose text differs; no big ints or lone surrogates, which it refuses)."""
    if not _has_float(value):
        try:
            return orjson.dumps(value).decode()
        except TypeError:
            pass
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _has_float(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            return True
    return False
