"""What the command line asked the app for (kept light: imported before the first screen)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
    trust_workspace: bool = False  # use the workspace's own content without asking (run)
    effort: str | None = None  # run --effort: the reasoning effort, over the profile's

    @classmethod
    def from_flags(cls, args: Any, **extra: Any) -> HostOptions:
        """The provider and workspace flags every command shares, plus ``extra``."""
        return cls(
            profile=args.profile,
            protocol=args.protocol,
            model=args.model,
            base_url=args.base_url,
            api_key_env=args.api_key_env,
            workspace=args.workspace,
            **extra,
        )
