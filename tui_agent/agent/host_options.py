"""What the command line asked the app for (kept light: imported before the first screen)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class HostOptions:
    profile: str | None = None
    protocol: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    workspace: str | None = None
    resume: str | None = None  # a session id or path
    continue_last: bool = False
