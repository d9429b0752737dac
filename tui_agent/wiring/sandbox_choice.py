"""The sandbox a session starts with: ``[settings]``, the profile's network switch, and the
command line's ``--sandbox MODE`` (which wins)."""

from __future__ import annotations

from ..config import Config
from ..sandbox.policy import SandboxMode, SandboxPolicy

# Set once by the command line (``--sandbox``) before the app or ``run`` opens a session.
_cli_mode: SandboxMode | None = None


def set_cli_mode(mode: SandboxMode | None) -> None:
    global _cli_mode
    _cli_mode = mode


def session_policy(config: Config, profile_name: str | None = None) -> SandboxPolicy:
    settings = config.settings
    profile = config.profiles.get(profile_name) if profile_name else None
    network = settings.sandbox_network
    if profile is not None and profile.sandbox_network is not None:
        network = profile.sandbox_network
    return SandboxPolicy(
        mode=_cli_mode or settings.sandbox,
        network=network,
        denied=tuple(settings.sandbox_denied_paths),
        max_processes=settings.sandbox_max_processes,
        memory_mb=settings.sandbox_memory_mb,
        write_mb=settings.sandbox_write_mb,
        protect_git=settings.sandbox_protect_git,
    )
