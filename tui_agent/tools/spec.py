"""What a tool is: name, description, strict argument model, risk level and run function."""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..conversation import ImagePart
from ..sandbox.detect import Capabilities
from ..sandbox.policy import SandboxPolicy, ToolSandbox
from .jobs import JobTable
from .schema import provider_schema

# The strictest rule among providers (OpenAI): letters, digits, underscore and hyphen, 1-64 long.
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Risk(StrEnum):
    """How much a call can do; the approver decides what needs asking by this."""

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    NETWORK = "network"


class ToolFailure(Exception):
    """A tool could not do what was asked; the message goes to the model as an error result."""


@dataclass(frozen=True)
class ToolOutput:
    """What a call returns to the model. ``is_error`` marks a failed call; ``images`` (read_file
    of an image, an MCP tool's image content) go to the model with the text."""

    text: str
    is_error: bool = False
    images: tuple[ImagePart, ...] = ()


@dataclass(frozen=True)
class ToolContext:
    """Where and how tools run.

    ``workspace`` is already resolved. ``protected`` holds the app's own config, data and log
    directories: reads and writes there are refused even when they lie inside the workspace.
    ``unprotected``: folders inside those that tools may use all the same (the demo workspace,
    which lives in the data directory); the rest of a protected folder stays refused.
    ``secret_values`` (the provider key): no variable holding one reaches a tool's process.
    ``sandbox``: how the programs tools run are confined (the call's own, once approved);
    ``capabilities``: what the OS offers (None: found out on first use).
    ``jobs``: the session's background commands (None: ``background`` is refused).
    ``call_id`` and ``report``: the call that runs, and where a tool that works in steps (the
    task tool's subagent) tells the loop what happens meanwhile; set only while a call runs.
    """

    workspace: Path
    protected: tuple[Path, ...] = ()
    unprotected: tuple[Path, ...] = ()
    secret_values: tuple[str, ...] = field(default=(), repr=False)
    command_timeout_s: float = 120.0
    command_output_cap: int = 1_000_000
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    capabilities: Capabilities | None = None
    jobs: JobTable | None = field(default=None, repr=False, compare=False)
    call_id: str = ""
    report: Callable[[Any], None] | None = field(default=None, repr=False, compare=False)


# A coroutine (not any awaitable) so that callers can hand it to asyncio.create_task.
RunFunction = Callable[[Any, ToolContext], Coroutine[Any, Any, ToolOutput]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool. ``run`` receives an instance of ``args_model`` and returns the call's result.

    Run functions return a ``ToolOutput`` with ``is_error`` for every failure a model or user can
    cause; they raise only ``asyncio.CancelledError`` (or on a bug).
    """

    name: str
    description: str
    args_model: type[BaseModel]
    risk: Risk
    run: RunFunction = field(repr=False)
    # Set for a tool that runs programs: they run under the sandbox, relaxed as it says.
    sandbox: ToolSandbox | None = None
    # A schema given as is (an MCP server's); None: the one made from ``args_model``.
    input_schema: dict[str, Any] | None = field(default=None, repr=False)
    # What the tool's provider says about it, shown on the approval prompt as its claim.
    claims: tuple[str, ...] = ()
    # The risk of one call when it depends on its arguments (the task tool: its agent's tools);
    # None: ``risk`` for every call. ``risk`` is what decides whether the tool is offered.
    risk_of: Callable[[Any], Risk] | None = field(default=None, repr=False, compare=False)
    # The description when it depends on what changes in a session (the task tool's lists the
    # agents on offer now), given whether only read-only tools may run (plan mode); None:
    # ``description`` always (with it, ``description`` is what it said when the tool was made).
    # Asked whenever the tool list is built and for each request.
    describe: Callable[[bool], str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not TOOL_NAME.fullmatch(self.name):
            raise ValueError(
                f"invalid tool name {self.name!r}: use 1-64 letters, digits, '_' or '-'"
            )

    def described(self, read_only: bool = False) -> str:
        """The description the model is given now (``read_only``: in plan mode)."""
        return self.describe(read_only) if self.describe is not None else self.description

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments, as a plain object schema providers accept."""
        if self.input_schema is not None:
            return self.input_schema
        return provider_schema(self.args_model)
