"""A workspace's own ``.mcp.json`` (the file Claude Code reads): servers a repository declares.

Such a file comes with the code, not from the person: it never makes a tool read-only or a server
trusted, and nothing in it starts until the person trusted that exact file (mcp/trust.py).
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .config import McpConfigError, McpServerConfig, check_server_name

FILE_NAME = ".mcp.json"
MAX_FILE_BYTES = 256 * 1024
_KEYS = {"type", "command", "args", "env", "cwd", "url", "headers"}
_TYPES = {"stdio", "http", "streamable-http"}


@dataclass(frozen=True)
class WorkspaceServers:
    path: Path
    servers: dict[str, McpServerConfig]
    digest: str  # SHA-256 of the file's bytes: trust is for exactly this content

    def describe(self) -> list[str]:
        """One line per server: exactly what would run or be reached."""
        lines = []
        for name, config in self.servers.items():
            if config.command is not None:
                command = shlex.join([config.command, *config.args])
                env = " ".join(f"{k}={shlex.quote(v)}" for k, v in config.env.items())
                lines.append(f"{name}: runs {(env + ' ') if env else ''}{command}")
            else:
                headers = ", ".join(config.headers)
                lines.append(
                    f"{name}: connects to {config.url}"
                    + (f" (headers: {headers})" if headers else "")
                )
        return lines


def read_workspace_servers(workspace: Path) -> WorkspaceServers | None:
    """The servers of ``workspace/.mcp.json``; None when there is no such file.

    McpConfigError when the file is unreadable or malformed (then nothing of it is used).
    """
    path = workspace / FILE_NAME
    try:
        if not path.is_file():
            return None
        raw = path.read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as exc:
        raise McpConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise McpConfigError(f"{path} is larger than {MAX_FILE_BYTES} bytes")
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise McpConfigError(f"{path} is not valid JSON: {exc}") from None
    except RecursionError:  # a hostile repository's 10,000 brackets
        raise McpConfigError(f"{path} is not valid JSON: nested too deeply") from None
    declared = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(declared, dict):
        raise McpConfigError(f'{path} has no "mcpServers" object')
    servers = {name: _server(path, name, entry) for name, entry in declared.items()}
    return WorkspaceServers(path, servers, hashlib.sha256(raw).hexdigest())


def _server(path: Path, name: str, entry: Any) -> McpServerConfig:
    check_server_name(name)
    if not isinstance(entry, dict):
        raise McpConfigError(f"{path}: server {name!r} must be an object")
    unknown = set(entry) - _KEYS
    if unknown:
        raise McpConfigError(f"{path}: server {name!r} has unknown keys {sorted(unknown)}")
    kind = entry.get("type", "http" if "url" in entry else "stdio")
    if not isinstance(kind, str) or kind not in _TYPES:  # (a list is not hashable)
        raise McpConfigError(f"{path}: server {name!r} has type {kind!r}; use stdio or http")
    fields = {key: value for key, value in entry.items() if key != "type"}
    try:
        return McpServerConfig.model_validate(fields).mark_from_workspace()
    except ValidationError as exc:
        problem = "; ".join(error["msg"] for error in exc.errors())
        raise McpConfigError(f"{path}: server {name!r}: {problem}") from None
