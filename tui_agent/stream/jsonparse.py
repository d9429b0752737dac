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


def is_json(text: str) -> bool:
    """True when ``text`` is one complete JSON value (surrounding whitespace allowed)."""
    try:
        loads(text)
    except ValueError:
        return False
    return True


def dumps_compact(value: Any) -> str:
    """The one serialization for arguments a provider sent as an object."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
