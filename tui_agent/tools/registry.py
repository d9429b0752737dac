"""The tools the model may call, by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .builtin import BUILTIN_TOOLS
from .spec import ToolSpec


class DuplicateToolError(ValueError):
    """Two tools share a name (for example a user tool named like a built-in one)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"two tools are named {name!r}; tool names must be unique")


class ToolRegistry:
    """An ordered, read-only set of tools, looked up by name."""

    def __init__(self, specs: Iterable[ToolSpec]) -> None:
        self._by_name: dict[str, ToolSpec] = {}
        for spec in specs:
            if spec.name in self._by_name:
                raise DuplicateToolError(spec.name)
            self._by_name[spec.name] = spec

    def get(self, name: str) -> ToolSpec | None:
        return self._by_name.get(name)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def names(self) -> list[str]:
        return list(self._by_name)

    def schemas(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(name, description, parameters schema) for each tool, for the provider request."""
        return [(s.name, s.described(), s.parameters_schema()) for s in self._by_name.values()]


def builtin_registry(extra: Iterable[ToolSpec] = ()) -> ToolRegistry:
    """The built-in tools followed by ``extra`` (such as the user's own tools)."""
    return ToolRegistry([*BUILTIN_TOOLS, *extra])
