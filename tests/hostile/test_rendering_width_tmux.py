"""Rendering in a real terminal: the approval prompt shows the tail of a command hidden behind
characters the layout measures narrower than the terminal draws them.

The installed ``tui-agent`` on the offline demo model runs in a tmux pane (120x40, isolated
HOME and XDG folders); ``$COMMAND`` makes the demo ask for ``run_command`` with exactly that
command. 200 U+302E are 0 cells for Rich and 2 each for tmux (glibc's wcwidth): before the width
rule the prompt's row showed ``echo 'formatting the docs' 〮〮〮…`` and the terminal dropped the
tail, ``; touch HIDDEN-RAN``, past its right edge. What tmux shows is what counts: its capture of
the prompt's rows must hold the tail. Skipped when tmux is not installed.
"""

from __future__ import annotations

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
TAIL = "; touch HIDDEN-RAN"
COMMAND = "echo 'formatting the docs' " + "\u302e" * 200 + TAIL


def _tmux(*args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, *args], capture_output=True, text=True, timeout=10, check=False)
    return done.stdout


def _prompt_rows(screen: str) -> list[str]:
    """The rows of the approval prompt's command: from its heading to its keys."""
    rows = screen.splitlines()
    start = next(i for i, row in enumerate(rows) if "command line, run by /bin/sh" in row)
    end = next(i for i in range(start, len(rows)) if "approve once" in rows[i])
    return rows[start + 1 : end]


def test_the_prompt_in_a_terminal_shows_the_tail_after_wide_marks(tmp_path: Path) -> None:
    env = tmux_env(tmp_path, TUI_AGENT_DEMO_PACE="0", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    workspace = tmp_path / "ws"
    name = f"tui-agent-width-{uuid.uuid4().hex[:8]}"
    command = f"{sys.executable} -m tui_agent --workspace {workspace}"
    socket = ["-L", name]  # a tmux server of its own, ended with the test
    subprocess.run(
        [TMUX or "tmux", *socket, "-u", "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
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
        tmux("send-keys", "-t", name, "-l", "$" + COMMAND)
        tmux("send-keys", "-t", name, "Enter")
        wait("approve once")
        time.sleep(1.0)  # the preview is drawn, the screen holds still
        shown = screen()
        rows = _prompt_rows(shown)
        assert any(TAIL in row for row in rows), shown
        assert all("\u302e" not in row for row in rows), shown  # escaped, not drawn
        assert any("⟨200 times <U+302E>⟩" in row for row in rows), shown
        time.sleep(1.0)  # the prompt takes focus and arms
        tmux("send-keys", "-t", name, "n")
        wait("run_command denied")
    finally:
        tmux("send-keys", "-t", name, "C-q")
        time.sleep(0.5)
        tmux("kill-server")
