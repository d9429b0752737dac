"""Vertex ``partialArgs``: rebuild a call's argument object from (jsonPath, value) pieces.

Strings arrive in pieces for the same path while ``willContinue`` is set; numbers, booleans and
nulls arrive whole. Paths look like ``$.recipe.steps[2]`` or ``$["odd key"]``.
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(
    r"""\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]"""
)
_MAX_INDEX = 100_000  # a hostile index must not make us allocate a huge list


class PartialArgsError(ValueError):
    """A partialArgs piece that cannot be placed."""


def parse_path(path: str) -> list[str | int]:
    """``$.a[1]['b']`` -> ["a", 1, "b"]; raises PartialArgsError for anything else."""
    if not path.startswith("$"):
        raise PartialArgsError(f"jsonPath must start with $: {path!r}")
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        match = _TOKEN.match(path, pos)
        if match is None:
            raise PartialArgsError(f"unsupported jsonPath: {path!r}")
        name, index, single, double = match.groups()
        if index is not None:
            if int(index) > _MAX_INDEX:
                raise PartialArgsError(f"jsonPath index too large: {path!r}")
            steps.append(int(index))
        else:
            steps.append(name if name is not None else (single if single is not None else double))
        pos = match.end()
    if not steps:
        raise PartialArgsError("jsonPath names no field")
    return steps


class PartialArgsObject:
    """The argument object of one streaming call, built piece by piece."""

    def __init__(self) -> None:
        self.value: dict[str, Any] = {}
        self._continuing: set[str] = set()

    def apply(self, piece: dict[str, Any]) -> int:
        """Place one partialArgs piece; returns how many bytes of argument it carried."""
        path = piece.get("jsonPath")
        if not isinstance(path, str):
            raise PartialArgsError("partialArgs piece without a jsonPath")
        steps = parse_path(path)
        size: int
        if "stringValue" in piece:
            text = piece["stringValue"]
            if not isinstance(text, str):
                raise PartialArgsError("stringValue is not a string")
            current = self._get(steps)
            value: Any = (
                current + text if path in self._continuing and isinstance(current, str) else text
            )
            size = len(text.encode("utf-8", "surrogatepass"))
        elif "numberValue" in piece:
            value = piece["numberValue"]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PartialArgsError("numberValue is not a number")
            size = len(str(value))
        elif "boolValue" in piece:
            value = piece["boolValue"]
            if not isinstance(value, bool):
                raise PartialArgsError("boolValue is not a boolean")
            size = 4
        elif "nullValue" in piece:
            value, size = None, 4
        else:
            raise PartialArgsError(f"partialArgs piece without a value at {path}")
        self._set(steps, value)
        if piece.get("willContinue") is True:
            self._continuing.add(path)
        else:
            self._continuing.discard(path)
        return size

    def _get(self, steps: list[str | int]) -> Any:
        node: Any = self.value
        for step in steps:
            if isinstance(step, int):
                if not isinstance(node, list) or step >= len(node):
                    return None
            elif not isinstance(node, dict) or step not in node:
                return None
            node = node[step]
        return node

    def _set(self, steps: list[str | int], value: Any) -> None:
        node: Any = self.value
        for step, following in zip(steps, [*steps[1:], None], strict=True):
            child: Any = value if following is None else ([] if isinstance(following, int) else {})
            if isinstance(step, int):
                if not isinstance(node, list):
                    raise PartialArgsError("jsonPath indexes into something that is not a list")
                while len(node) <= step:
                    node.append(None)
                if following is None or not isinstance(node[step], list | dict):
                    node[step] = child
            else:
                if not isinstance(node, dict):
                    raise PartialArgsError("jsonPath names a field of something not an object")
                if following is None or not isinstance(node.get(step), list | dict):
                    node[step] = child
            node = node[step]
