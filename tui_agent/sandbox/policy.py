"""What a command may do: the sandbox mode, the network switch, the denied paths and limits.

- ``workspace-write`` (the default): read the file system except the denied paths, write only
  inside the workspace and a private temporary folder.
- ``read-only``: the same reads, no writes (the private temporary folder aside).
- ``off``: no confinement at all (how commands ran before the sandbox).

The network is a separate switch, off by default. A policy is frozen: what was shown on an
approval is exactly what the command runs under (see ``binding``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from enum import StrEnum


class SandboxMode(StrEnum):
    WORKSPACE_WRITE = "workspace-write"
    READ_ONLY = "read-only"
    OFF = "off"


class UnknownSandboxModeError(ValueError):
    def __init__(self, value: str) -> None:
        known = ", ".join(mode.value for mode in SandboxMode)
        super().__init__(f"unknown sandbox mode {value!r}; use one of: {known}")


def parse_mode(value: str) -> SandboxMode:
    try:
        return SandboxMode(value)
    except ValueError:
        raise UnknownSandboxModeError(value) from None


# Credentials a command has no business reading. ``~`` is the home of the user running the app.
DEFAULT_DENIED_PATHS: tuple[str, ...] = (
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.config/gh",
    "~/.kube",
    "~/.docker",
    "~/.netrc",
    "~/.git-credentials",
    "~/.pypirc",
    "~/.npmrc",
    "~/.password-store",
    "~/.local/share/keyrings",
    # Files that often hold exported tokens or passwords, and shell histories.
    "~/.bashrc",
    "~/.bash_profile",
    "~/.bash_login",
    "~/.profile",
    "~/.zshrc",
    "~/.zshenv",
    "~/.zprofile",
    "~/.config/fish",
    "~/.bash_history",
    "~/.zsh_history",
    "~/.local/share/fish/fish_history",
    "~/.psql_history",
    "~/.mysql_history",
    "~/.python_history",
    "~/.pgpass",
    "~/.my.cnf",
    "~/.vault-token",
    "~/.boto",
    "~/.s3cfg",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.config/hub",
    "~/.config/op",
    "~/.config/rclone",
)
DEFAULT_MAX_PROCESSES = 512
DEFAULT_MEMORY_MB = 8192
DEFAULT_WRITE_MB = 2048


@dataclass(frozen=True)
class SandboxPolicy:
    """How one command is confined. ``denied`` may hold ``~``; see ``denied_real_paths``."""

    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE
    network: bool = False
    denied: tuple[str, ...] = DEFAULT_DENIED_PATHS
    max_processes: int = DEFAULT_MAX_PROCESSES
    memory_mb: int = DEFAULT_MEMORY_MB  # address space of each process
    write_mb: int = DEFAULT_WRITE_MB  # what one call may write (see sandbox/write_quota.py)
    protect_git: bool = True  # the workspace's git folders read-only (see sandbox/git_guard.py)

    @property
    def confined(self) -> bool:
        return self.mode is not SandboxMode.OFF

    def label(self) -> str:
        """One line for the approval prompt and the status bar."""
        if not self.confined:
            return "off (unconfined)"
        return f"{self.mode.value}, {'network' if self.network else 'no network'}"

    def key(self) -> str:
        """What the approval's hash binds: every field that changes what the command may do."""
        denied = "\x1f".join(self.denied)
        return (
            f"sandbox={self.mode.value};network={self.network};denied={denied};"
            f"processes={self.max_processes};memory_mb={self.memory_mb};write_mb={self.write_mb}"
            f";protect_git={self.protect_git}"
        )

    def with_mode(
        self, mode: SandboxMode | None = None, network: bool | None = None
    ) -> SandboxPolicy:
        return replace(
            self,
            mode=self.mode if mode is None else mode,
            network=self.network if network is None else network,
        )

    def unconfined(self) -> SandboxPolicy:
        return replace(self, mode=SandboxMode.OFF, network=True)


def denied_real_paths(
    denied: tuple[str, ...], extra: tuple[os.PathLike[str] | str, ...] = ()
) -> tuple[str, ...]:
    """The denied paths that exist, ``~`` expanded and every symlink resolved."""
    found: list[str] = []
    for entry in (*denied, *extra):
        given = os.path.expanduser(os.fspath(entry))
        if not os.path.lexists(given):  # then its real path does not exist either (cheaper)
            continue
        path = os.path.realpath(given)
        if os.path.lexists(path) and path not in found and path != "/":
            found.append(path)
    return tuple(found)


@dataclass(frozen=True)
class ToolSandbox:
    """How a tool that runs programs relates to the session's sandbox: None keeps the session's
    setting; a user-defined tool may set its own mode or network (shown on its approval)."""

    mode: SandboxMode | None = None
    network: bool | None = None

    def apply(self, policy: SandboxPolicy) -> SandboxPolicy:
        return policy.with_mode(self.mode, self.network)

    def describe(self) -> str:
        """'' when the tool keeps the session's setting."""
        parts = []
        if self.mode is not None:
            parts.append(f"mode {self.mode.value}")
        if self.network is not None:
            parts.append("network on" if self.network else "network off")
        return f"this tool sets its own sandbox: {', '.join(parts)}" if parts else ""
