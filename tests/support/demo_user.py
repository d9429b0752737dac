"""A person with saved sessions and the offline demo model, for the UI tests of sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..sessions_cli_helpers import Cli

KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def demo_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    """An isolated home and workspace (the current folder), no provider key, the demo instant."""
    user = Cli(tmp_path, monkeypatch)
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    for name in KEY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(user.workspace)
    return user
