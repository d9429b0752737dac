"""tui-agent: a terminal chat UI for tool-using LLM agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .turn_reader import TurnReader, assemble

__all__ = ["TurnReader", "assemble"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Lazy, so that importing any submodule (the app's first screen above all) does not pull in
    # the providers, httpx-sse and httpx.
    if name in __all__:
        from . import turn_reader

        return getattr(turn_reader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
