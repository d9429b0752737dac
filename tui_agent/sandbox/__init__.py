"""The OS sandbox for the programs tools run (Linux: Landlock, namespaces, resource limits).

Floor: beside tools/process handling, below tools; imports nothing of the app but itself.
"""

from .confine import Launch, confinement
from .detect import Capabilities, detect
from .policy import (
    DEFAULT_DENIED_PATHS,
    SandboxMode,
    SandboxPolicy,
    UnknownSandboxModeError,
    parse_mode,
)

__all__ = [
    "DEFAULT_DENIED_PATHS",
    "Capabilities",
    "Launch",
    "SandboxMode",
    "SandboxPolicy",
    "UnknownSandboxModeError",
    "confinement",
    "detect",
    "parse_mode",
]
