"""A workspace's own ``.mcp.json`` (the file Claude Code reads): servers a repository declares.

Such a file comes with the code, not from the person: it never makes a tool read-only or a server
trusted, and nothing in it starts until the person trusted that exact file (mcp/trust.py). The
question shows every server whole (``describe``); a server that names a variable it may not send
(``VariablePolicy``: a provider's key, or a secret the person did not allow) never starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..providers import PROTOCOLS
from ..tools.environment import looks_secret
from ..workspace_trust import inside_workspace
from .config import McpConfigError, McpServerConfig, check_server_name
from .start import start_folder

FILE_NAME = ".mcp.json"
MAX_FILE_BYTES = 256 * 1024
_KEYS = {"type", "command", "args", "env", "cwd", "url", "headers"}
_TYPES = {"stdio", "http", "streamable-http"}
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")  # as mcp/config.py expands them
# Names that may hold a credential, beyond looks_secret's: when in doubt, refuse.
_SECRET_WORDS = re.compile(r"TOKEN|SECRET|API_?KEY|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.I)
_MIN_KEY_CHARS = 8  # a shorter value is no key to look for inside another variable


@dataclass(frozen=True)
class VariablePolicy:
    """Which variables a workspace file's server may send (in ``env`` or ``headers``).

    Never a variable a provider's key is read from (``provider_keys``: the profiles'
    ``api_key_env``; every protocol's key variables are added here), nor any variable whose value
    holds such a key; a name that looks like a secret only when the person allowed it
    (``allowed``, config.toml's ``[settings] workspace_mcp_variables``). Any other variable is
    sent once the person trusted the file that names it, where the question showed it.
    """

    provider_keys: frozenset[str] = frozenset()
    allowed: frozenset[str] = frozenset()
    environ: Mapping[str, str] | None = field(default=None, compare=False)

    def key_names(self) -> frozenset[str]:
        protocols = {name for spec in PROTOCOLS.values() for name in spec.key_envs}
        return self.provider_keys | protocols

    def refusal(self, variable: str) -> str | None:
        """Why a workspace file may not send ``variable``; None when it may."""
        env = os.environ if self.environ is None else self.environ
        names = self.key_names()
        if variable in names:
            return f"${{{variable}}} is where a provider's key is read from: never sent"
        value = env.get(variable, "")
        keys = [env[name] for name in names if len(env.get(name, "")) >= _MIN_KEY_CHARS]
        if value and any(key in value for key in keys):
            return f"${{{variable}}} holds a provider's key: never sent"
        secret = looks_secret(variable) or _SECRET_WORDS.search(variable) is not None
        if secret and variable not in self.allowed:
            return (
                f"${{{variable}}} looks like a secret: sent only when config.toml allows it "
                "([settings] workspace_mcp_variables)"
            )
        return None


def named_variables(config: McpServerConfig) -> list[str]:
    """The variables a server's ``env`` and ``headers`` name as ``${VAR}``, in order, once each."""
    texts = (*config.env.values(), *config.headers.values())
    found = (match.group(1) for text in texts for match in _VARIABLE.finditer(text))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class WorkspaceServers:
    path: Path
    servers: dict[str, McpServerConfig]
    digest: str  # SHA-256 of the file's bytes: trust is for exactly this content

    def refused(self, policy: VariablePolicy) -> dict[str, str]:
        """The servers that never start, by name, and why (the variables they may not send)."""
        refused = {}
        for name, config in self.servers.items():
            reasons = [why for v in named_variables(config) if (why := policy.refusal(v))]
            if reasons:
                refused[name] = "; ".join(reasons)
        return refused

    def describe(self, policy: VariablePolicy) -> list[str]:
        """Every server whole: what runs (command, args, cwd, env) or is reached (url, headers),
        each ``${VAR}`` named as a variable, and the servers that never start, and why."""
        refused = self.refused(policy)
        lines: list[str] = []
        count = len(self.servers)
        for index, (name, config) in enumerate(self.servers.items(), 1):
            what = "runs a command (stdio)" if config.command is not None else "connects (http)"
            lines.append(f"server {index} of {count}: {name} — {what}")
            if name in refused:
                lines.append(f"    NOT STARTED, even if trusted: {refused[name]}")
            lines += [f"    {line}" for line in _fields(config, self.path.parent)]
        return lines


def read_workspace_servers(workspace: Path) -> WorkspaceServers | None:
    """The servers of ``workspace/.mcp.json``; None when there is no such file.

    McpConfigError when the file is unreadable or malformed (then nothing of it is used).
    """
    path = workspace / FILE_NAME
    try:
        if not path.is_file():
            return None
        if not inside_workspace(path, workspace):
            raise McpConfigError(f"{path} leads outside the workspace (a symlink): not used")
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


def _fields(config: McpServerConfig, workspace: Path) -> list[str]:
    """The server's every field that decides what runs or is sent, one per line."""
    if config.command is not None:
        lines = [f"command: {shlex.quote(config.command)}"]
        lines += [f"arg {i}: {shlex.quote(arg)}" for i, arg in enumerate(config.args, 1)]
        if not config.args:
            lines.append("args: none")
        try:
            folder = str(start_folder(config.cwd, workspace, from_workspace=True, where="cwd"))
        except McpConfigError as exc:
            folder = f"refused: {exc}"
        named_cwd = "none" if config.cwd is None else shlex.quote(config.cwd)
        lines.append(f"cwd: {named_cwd} (starts in {folder})")
        named = config.env
        label = "env"
    else:
        lines = [f"url: {config.url}"]
        named = config.headers
        label = "header"
    if not named:
        lines.append(f"{label}: none")
    for key, value in named.items():
        variables = [m.group(1) for m in _VARIABLE.finditer(value)]
        sends = f" — sends the variable{'s' if len(variables) > 1 else ''} " if variables else ""
        lines.append(
            f"{label} {key} = {json.dumps(value, ensure_ascii=False)}"
            + sends
            + ", ".join(f"${v}" for v in dict.fromkeys(variables))
        )
    return lines
