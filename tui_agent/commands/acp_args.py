"""The command-line arguments of `tui-agent acp` (argparse only: cheap to build)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_acp_command(
    commands: Any, add_profile_flags: Callable[[argparse.ArgumentParser], None]
) -> None:
    """Add ``acp`` to the root parser's subparsers."""
    acp = commands.add_parser(
        "acp",
        help="serve tui-agent's own agent over the Agent Client Protocol on stdio (for editors)",
        description="Run tui-agent's agent for an Agent Client Protocol client (an editor such "
        "as Zed) that starts this command and speaks JSON-RPC on its stdin and stdout. Each "
        "session's workspace is the folder the client names (session/new's cwd; --workspace "
        "is not used); the profile and model are config.toml's, or the flags'. Tool calls the "
        "approval mode and rules do not allow are asked through the client's permission "
        "request. Sessions are saved as the app's are. Logs and notices go to stderr. Exit "
        "status: 0 the client closed the connection, 1 a usage or configuration error.",
    )
    add_profile_flags(acp)
    acp.add_argument(
        "--trust-workspace",
        action="store_true",
        help="use the workspace's own AGENTS.md, skills, hooks and .mcp.json though not "
        "trusted (nobody is asked over ACP; without this they are not used until trusted in "
        "the app)",
    )
