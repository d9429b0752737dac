"""What the tmux end-to-end tests share: the app's environment, waiting for text on the pane."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def tmux_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment for the app in a pane of its own: this one without provider keys or
    tmux's variables, HOME and the XDG folders made under ``root`` (and ``root / "ws"``), an
    xterm; then ``extra``."""
    for name in ("home", "config", "data", "state", "ws"):
        (root / name).mkdir()
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS and not k.startswith("TMUX")}
    return env | {
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_STATE_HOME": str(root / "state"),
        "TERM": "xterm-256color",
        **extra,
    }


def wait_shown(screen: Callable[[], str], text: str, timeout: float = 20.0) -> str:
    """The pane (``screen()``) once it shows ``text``; fail with the pane after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while text not in (shown := screen()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never shown:\n{shown}")
        time.sleep(0.1)
    return shown
