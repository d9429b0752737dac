"""The OS sandbox for the programs tools run (Linux: Landlock, namespaces, resource limits).

Floor: beside tools/process handling, below tools; imports nothing of the app but itself.
"""

from .confine import confinement
from .detect import detect
from .policy import (
    DEFAULT_DENIED_PATHS,
    SandboxMode,
    SandboxPolicy,
)

__all__ = [
    "DEFAULT_DENIED_PATHS",
    "SandboxMode",
    "SandboxPolicy",
    "confinement",
    "detect",
]
