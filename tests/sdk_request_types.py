"""Checks a request body's JSON against the official SDKs' own request types (TypedDicts).

Stricter than the SDKs themselves (which pass dicts through unchecked): every key must be one
the type declares, every required key present, every value of a declared type, each union tried
in turn. ``conforms(value, tp)`` returns None or the first mismatch, as a path.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any, Literal, Union

import pydantic
import typing_extensions

_WRAPPERS = {typing_extensions.Required, typing_extensions.NotRequired, typing.ClassVar}
_WRAPPERS |= {getattr(typing, "Required", None), getattr(typing, "NotRequired", None)}  # type: ignore[arg-type]


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _required(tp: Any, hints: dict[str, Any]) -> list[str]:
    """The keys a TypedDict needs: ``Required[...]`` ones, or all but ``NotRequired`` in a total
    one (its own ``__required_keys__`` misses them under postponed annotations)."""
    required = []
    for key, hint in hints.items():
        origin = typing.get_origin(hint)
        named = getattr(origin, "_name", None) or getattr(origin, "__name__", "")
        if named == "Required" or (getattr(tp, "__total__", True) and named != "NotRequired"):
            required.append(key)
    return required


def conforms(value: Any, tp: Any, path: str = "$") -> str | None:
    """None when ``value`` is an instance of ``tp``; else where and why it is not."""
    origin = typing.get_origin(tp)
    if tp is Any or tp is object:
        return None
    if origin is typing.Annotated or origin in _WRAPPERS:
        return conforms(value, typing.get_args(tp)[0], path)
    if origin is Union or origin is types.UnionType:
        problems = [conforms(value, arm, path) for arm in typing.get_args(tp)]
        if any(problem is None for problem in problems):
            return None
        return max((p for p in problems if p), key=lambda p: len(p.split(": ")[0]))
    if origin is Literal:
        return None if value in typing.get_args(tp) else f"{path}: {value!r} not in {tp}"
    if tp is type(None):
        return None if value is None else f"{path}: not None"
    if _is_typeddict(tp):
        if not isinstance(value, dict):
            return f"{path}: not an object for {tp.__name__}"
        hints = typing.get_type_hints(tp, include_extras=True)
        for key in value:
            if key not in hints:
                return f"{path}: {tp.__name__} has no key {key!r}"
        for key in _required(tp, hints):
            if key not in value:
                return f"{path}: {tp.__name__} needs {key!r}"
        for key, item in value.items():
            if (problem := conforms(item, hints[key], f"{path}.{key}")) is not None:
                return problem
        return None
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence):
        if not isinstance(value, list):
            return f"{path}: not a list"
        (arm,) = typing.get_args(tp) or (Any,)
        for index, item in enumerate(value):
            if (problem := conforms(item, arm, f"{path}[{index}]")) is not None:
                return problem
        return None
    if origin in (dict, collections.abc.Mapping):
        return None if isinstance(value, dict) else f"{path}: not an object"
    if tp is str:
        return None if isinstance(value, str) else f"{path}: not a string"
    if tp is bool:
        return None if isinstance(value, bool) else f"{path}: not a bool"
    if tp in (int, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else f"{path}: not a number"
    if getattr(tp, "__name__", "") == "SequenceNotStr":
        return conforms(value, list[typing.get_args(tp)[0]], path)
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        # The SDKs also take their response models as input; a JSON body holds none.
        return f"{path}: a {tp.__name__} model, not JSON"
    return None  # a type this checker does not know: not judged
