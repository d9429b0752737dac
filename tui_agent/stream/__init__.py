"""Floor 1: the normalized stream vocabulary and the turn assembler. No I/O, no Textual."""

from .assembler import TurnAssembler
from .progress import Progress, ToolArgumentsReceived, ToolCallAnnounced
from .turn import PendingCall, ToolCall, TruncatedTurn, Turn, TurnResult

__all__ = [
    "PendingCall",
    "Progress",
    "ToolArgumentsReceived",
    "ToolCall",
    "ToolCallAnnounced",
    "TruncatedTurn",
    "Turn",
    "TurnAssembler",
    "TurnResult",
]
