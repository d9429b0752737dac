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


class RepeatedKeys(dict[str, Any]):
    """A JSON object that repeats a key: the last value wins, as ``json.loads`` has it, and
    ``pairs`` keeps every pair in order, so ``dumps_compact`` writes the object as it came and
    the strict argument parse refuses it by name instead of running one reader's guess."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = {key for key, _ in pairs}
    return dict(pairs) if len(keys) == len(pairs) else RepeatedKeys(pairs)


def loads_exact(text: str) -> Any:
    """Parse JSON text with the stdlib, keeping what the fast reader loses: every integer exact
    (orjson reads one beyond 64 bits as a rounded float) and every repeated key (``RepeatedKeys``).
    For arguments sent as objects and events that may carry them, never for every event."""
    try:
        return json.loads(text, object_pairs_hook=_object)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def is_json(text: str) -> bool:
    """True when ``text`` is one complete JSON value (surrounding whitespace allowed)."""
    try:
        loads(text)
    except ValueError:
        return False
    return True


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def is_json_object(text: str) -> bool:
    """True when ``text`` is one JSON object any JSON parser takes (no NaN or Infinity)."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict)


def dumps_compact(value: Any) -> str:
    """The one serialization for arguments a provider sent as an object: exactly
    ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, made by orjson when the
    two agree (no floats, whose text differs; no big ints or lone surrogates, which it refuses).
    An object with a repeated key (``RepeatedKeys``) is written with every pair, as it came."""
    kind = _needs_stdlib(value)
    if kind is None:
        try:
            return orjson.dumps(value).decode()
        except TypeError:
            pass
    if kind is RepeatedKeys:
        try:
            return _dump_pairs(value)
        except RecursionError as exc:
            raise ValueError("JSON nested too deeply") from exc
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _needs_stdlib(value: Any) -> type | None:
    """``RepeatedKeys`` if ``value`` holds one, else ``float`` if it holds a float, else None."""
    found: type | None = None
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item, RepeatedKeys):
                return RepeatedKeys
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            found = float
    return found


def _dump_pairs(value: Any) -> str:
    if isinstance(value, dict):
        pairs = value.pairs if isinstance(value, RepeatedKeys) else value.items()
        return "{" + ",".join(f"{_dump_pairs(k)}:{_dump_pairs(v)}" for k, v in pairs) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump_pairs(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)
