"""Fake keys for every provider, the scan for them and for key-like patterns, and the app under
test in an isolated home (for the Secrets group: test_secrets*.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui_agent.ui.app import TuiAgentApp
from tui_agent.wiring.host_options import HostOptions

from ..fake_provider import FakeProvider
from ..run_helpers import KEY_ENV, MODEL

# The key `tui-agent run` uses has no known shape: only its configured value can redact it.
RUN_KEY_ENV = KEY_ENV
RUN_KEY = "fake-provider-key-8c1e5a7f3b9d"
TUI_KEY_ENV = "ANTHROPIC_API_KEY"
TUI_KEY = "sk-ant-api03-FAKEtui0123456789abcdefghijklmnopqrstuvwx-AA"
KEY_ENVS = {
    RUN_KEY_ENV: RUN_KEY,
    TUI_KEY_ENV: TUI_KEY,
    "OPENAI_API_KEY": "sk-proj-FAKEopenai0123456789abcdefghijklmnop",
    "GEMINI_API_KEY": "AIzaFAKEgemini0123456789abcdefghijklmn",
    "GOOGLE_API_KEY": "AIzaFAKEgoogle0123456789abcdefghijklmn",
    "OPENROUTER_API_KEY": "sk-or-v1-FAKEopenrouter0123456789abcdefghij",
}
ALL_KEYS = tuple(KEY_ENVS.values())
KEY_LIKE = re.compile(
    r"sk-(?:ant-)?[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|[Bb]earer\s+[A-Za-z0-9._~+/=-]{16,}"
)


def leaks(text: str) -> list[str]:
    """Every key value and every key-like pattern in ``text``."""
    return KEY_LIKE.findall(text) + [key for key in ALL_KEYS if key in text]


def split_at_key(text: str, key: str) -> list[tuple[Any, ...]]:
    """Text ops cutting ``text`` inside ``key``, as a model's tokens would."""
    at = text.index(key) + 9
    return [("text", text[:at]), ("text", text[at : at + 5]), ("text", text[at + 5 :])]


def app_for(
    server: FakeProvider,
    workspace: Path,
    key_env: str = TUI_KEY_ENV,
    cls: type[TuiAgentApp] = TuiAgentApp,
) -> TuiAgentApp:
    """The app (``cls``) against ``server``, its key from ``key_env``."""
    options = HostOptions(
        protocol=server.protocol,
        model=MODEL,
        base_url=server.base_url,
        api_key_env=key_env,
        workspace=str(workspace),
    )
    return cls(options)
