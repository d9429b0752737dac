"""Validation and approval, part 5: typing across an approval prompt in a real terminal (tmux).

The installed ``tui-agent`` on the offline demo model runs in a tmux pane (120x40, isolated
HOME and XDG folders); keys arrive through tmux as a terminal sends them, at ~8 characters a
second with jitter, text holding every choice key, sent right after the message that makes the
demo ask for a ``run_command``. Nothing is decided, every key is in the message box, the prompt
says it waits; after a pause ``n`` denies. Skipped when tmux is not installed.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ..support.tmux import tmux_env, wait_shown

TMUX = shutil.which("tmux")
pytestmark = [
    pytest.mark.heavy,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
]
TEXT = "Any tent type repo yes"


def _tmux(*args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, *args], capture_output=True, text=True, timeout=10, check=False)
    return done.stdout


def test_typing_across_the_prompt_in_a_terminal_decides_nothing(tmp_path: Path) -> None:
    env = tmux_env(tmp_path, TUI_AGENT_DEMO_PACE="0")
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir()
    name = f"tui-agent-typing-{uuid.uuid4().hex[:8]}"
    command = f"{sys.executable} -m tui_agent --workspace {workspace}"
    socket = ["-L", name]  # a tmux server of its own, ended with the test
    subprocess.run(
        [TMUX or "tmux", *socket, "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
         "-c", str(workspace), command],
        env=env, check=True, timeout=10,
    )  # fmt: skip

    def tmux(*args: str) -> str:
        return _tmux(*socket, *args)

    def screen() -> str:
        return tmux("capture-pane", "-p", "-t", name)

    def wait(text: str, timeout: float = 20.0) -> str:
        return wait_shown(screen, text, timeout)

    try:
        wait("offline demo model")
        tmux("send-keys", "-t", name, "-l", "run ls -l src")
        tmux("send-keys", "-t", name, "Enter")
        rng = random.Random(10)
        said_so = False
        for char in TEXT:
            tmux("send-keys", "-t", name, "-l", char)
            time.sleep(rng.uniform(0.5, 1.5) / 8)
            said_so = said_so or "keep typing" in screen()
        shown = wait(TEXT)  # every key in the message box
        assert said_so, shown
        assert "waiting for approval: run_command" in shown, shown  # not decided
        assert "run_command waiting" in shown, shown
        # A pause: the prompt takes focus and arms. However slow the machine, n denies once it
        # has (an n before that is typing, and goes to the box after the text).
        for _ in range(10):
            time.sleep(1.8)
            tmux("send-keys", "-t", name, "n")
            if "run_command denied" in (shown := screen()):
                break
        shown = wait("run_command denied")
        assert TEXT in shown  # the message is still in the box
    finally:
        tmux("send-keys", "-t", name, "C-q")
        time.sleep(0.5)
        tmux("kill-server")
