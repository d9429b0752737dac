"""``[mcp_servers.NAME]`` in config.toml: one MCP server, started over stdio or reached by URL.

This module depends on pydantic only, so config/ can import it without pulling in the SDK.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from .errors import McpConfigError as McpConfigError  # where callers have always found it

_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)
SERVER_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
Transport = Literal["stdio", "http"]


class McpServerConfig(BaseModel):
    """One server. ``command`` (stdio) or ``url`` (streamable HTTP), never both.

    ``env`` and ``headers`` values may name environment variables as ``${VAR}``; they are read
    when the server starts. ``read_only_tools`` and ``trusted`` are the only ways a tool counts as
    read-only for auto-approval: ``trusted`` believes the server's own readOnlyHint.
    """

    model_config = _STRICT

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    startup_timeout: float = Field(default=20.0, gt=0, strict=False)  # int or float in TOML
    tool_timeout: float = Field(default=120.0, gt=0, strict=False)
    enabled_tools: list[str] | None = None  # None: all the server offers
    disabled_tools: list[str] = Field(default_factory=list)
    read_only_tools: list[str] = Field(default_factory=list)
    trusted: bool = False
    # Set by mcp/workspace_file.py: declared by a workspace's .mcp.json, not by the person.
    _from_workspace: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of 'command' (stdio) or 'url' (streamable HTTP)")
        if self.command is not None:
            if not self.command.strip() or "\0" in self.command:
                raise ValueError("'command' must be a non-empty program name or path")
            if self.headers:
                raise ValueError("'headers' is for 'url' servers; a command server has 'env'")
        else:
            assert self.url is not None
            if not re.match(r"https?://[^/\s]+", self.url):
                raise ValueError(f"'url' must start with http:// or https://, got {self.url!r}")
            if self.args or self.env or self.cwd is not None:
                raise ValueError("'args', 'env' and 'cwd' are for 'command' servers")
        if any("\0" in text for text in (*self.args, *self.env.values())):
            raise ValueError("'args' and 'env' must not contain NUL characters")
        return self

    @property
    def from_workspace(self) -> bool:
        """Declared in a workspace's ``.mcp.json`` (came with the code), not in config.toml."""
        return self._from_workspace

    def mark_from_workspace(self) -> McpServerConfig:
        self._from_workspace = True
        return self

    def start_folder(self, workspace: Path) -> Path:
        """The folder this stdio server starts in (what a trust question shows): its ``cwd``, or
        the config folder. McpConfigError when a workspace file names a ``cwd`` inside the
        workspace (the agent could plant code there); mcp/start.py has the rules."""
        from .start import start_folder

        return start_folder(
            self.cwd, workspace, from_workspace=self._from_workspace, where="MCP server cwd"
        )

    @property
    def transport(self) -> Transport:
        return "stdio" if self.command is not None else "http"

    def allows(self, tool: str) -> bool:
        """Whether the person wants ``tool`` (the server's own name) offered to the model."""
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return tool not in self.disabled_tools


def check_server_name(name: str) -> None:
    """McpConfigError unless ``name`` is 1-64 letters, digits, '_', '-' or '.'."""
    if not SERVER_NAME.fullmatch(name):
        raise McpConfigError(f"MCP server name {name!r}: use 1-64 letters, digits, '_', '-' or '.'")


def expand_variables(
    text: str, where: str, environ: Mapping[str, str] | None = None
) -> tuple[str, list[str]]:
    """``text`` with each ``${VAR}`` replaced; also the values used (to redact them).

    A variable that is not set is an McpConfigError naming it and ``where`` it was used.
    """
    environ = os.environ if environ is None else environ
    used: list[str] = []

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise McpConfigError(f"{where} names ${{{name}}}, which is not set")
        used.append(environ[name])
        return environ[name]

    return _VARIABLE.sub(value, text), used


def referenced_values(
    configs: Iterable[McpServerConfig], environ: Mapping[str, str] | None = None
) -> list[str]:
    """The values of the variables the servers' ``env`` and ``headers`` name as ``${VAR}`` (the
    ones set and not empty): secrets to redact from everything written or shown, known before
    any server starts."""
    environ = os.environ if environ is None else environ
    names = {
        match.group(1)
        for config in configs
        for text in (*config.env.values(), *config.headers.values())
        for match in _VARIABLE.finditer(text)
    }
    return [environ[name] for name in sorted(names) if environ.get(name)]
