"""tui-agent: a terminal chat UI for tool-using LLM agents."""

from .turn_reader import TurnReader, assemble

__all__ = ["TurnReader", "assemble"]
__version__ = "0.1.0"
