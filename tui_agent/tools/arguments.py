"""Parse a call's argument string once, strictly, and give the result one canonical form.

Refused: anything but exactly one JSON object; duplicate keys at any depth; NaN, Infinity,
numbers too large for a float and integers beyond 64 bits (no tool has a use for them, and
many JSON parsers silently round them); nesting deeper than ``MAX_NESTING``; and lone UTF-16
surrogates (``"\\ud800"``). Surrogates are refused because no tool can use them: they cannot
be encoded as UTF-8, so they could not be written to a file, passed as a process argument or
shown as text. The empty string is refused too; the turn assembler already turns a call with
no arguments into ``{}``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

MAX_NESTING = 100
MAX_INTEGER = 2**63 - 1  # integers must fit in a signed 64-bit number
_SURROGATE = re.compile("[\ud800-\udfff]")


class InvalidArguments(ValueError):
    """A call's argument string is not one strict JSON object; the message says why."""


class _Refused(ValueError):
    """Raised from inside the JSON parser's hooks; carries the final message."""


def parse_arguments(text: str) -> dict[str, Any]:
    """Parse ``text`` as exactly one JSON object, or raise ``InvalidArguments``."""
    if not text.strip():
        raise InvalidArguments("arguments are empty; expected a JSON object such as {}")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_object_without_duplicates,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except _Refused as exc:
        raise InvalidArguments(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise InvalidArguments(_describe_decode_error(exc)) from None
    except RecursionError:
        raise InvalidArguments(f"arguments are nested too deeply (limit {MAX_NESTING})") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise InvalidArguments(f"arguments are not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidArguments(f"arguments must be a JSON object, got {_json_kind(value)}")
    _check_nesting_and_text(value)
    return value


def canonical_json(obj: Any) -> str:
    """The one serialization of parsed arguments: sorted keys, no spaces, real characters."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def arguments_digest(obj: Any) -> str:
    """SHA-256 (hex) of the canonical JSON: equal for equal objects, whatever their spelling."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8", "surrogatepass")).hexdigest()


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Refused(f"duplicate key {key!r} in arguments")
        result[key] = value
    return result


def _refuse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Refused(f"number {text[:40]} is too large")
    return number


def _bounded_int(text: str) -> int:
    # The length first: converting thousands of digits is slow (and refused past 4300).
    number = int(text) if len(text.lstrip("-")) <= len(str(MAX_INTEGER)) else None
    if number is None or not -MAX_INTEGER - 1 <= number <= MAX_INTEGER:  # a signed 64-bit int
        shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
        raise _Refused(f"integer {shown} is too large (the limit is 64 bits)")
    return number


def _describe_decode_error(exc: json.JSONDecodeError) -> str:
    where = f"line {exc.lineno} column {exc.colno}"
    if exc.msg == "Extra data":
        return f"arguments must be exactly one JSON object; unexpected text at {where}"
    return f"arguments are not valid JSON: {exc.msg} at {where}"


def _check_nesting_and_text(value: dict[str, Any]) -> None:
    """Walk without recursion: the limit must hold however deep the parser let things go."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > MAX_NESTING:
                raise InvalidArguments(f"arguments are nested too deeply (limit {MAX_NESTING})")
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in items:
                if isinstance(key, str):
                    _check_text(key)
                stack.append((child, depth + 1))
        elif isinstance(node, str):
            _check_text(node)


def _check_text(text: str) -> None:
    if _SURROGATE.search(text):
        raise InvalidArguments(
            "arguments contain a lone UTF-16 surrogate (such as \\ud800), which is not text"
        )


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"
