"""Keys of the message box as a real terminal sends them, through tmux.

tmux sends Alt+Enter as ESC then CR, which Textual alone reads as a lone Enter (it would send
the message). The installed app on the offline demo model runs in a tmux pane of its own
(isolated HOME and XDG folders, an explicit workspace); Alt+Enter and Ctrl+J must add a line,
Enter sends the three lines as one message. Skipped when tmux is not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.tmux import tmux_env, wait_shown

TMUX = shutil.which("tmux")
pytestmark = [
    pytest.mark.heavy,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
]


def test_alt_enter_and_ctrl_j_add_a_line_in_tmux(tmp_path: Path) -> None:
    assert TMUX is not None
    env = tmux_env(tmp_path, TUI_AGENT_DEMO_PACE="0")
    name = f"tui-agent-keys-{uuid.uuid4().hex[:8]}"
    command = f"{sys.executable} -m tui_agent --workspace {tmp_path / 'ws'}"
    socket = ["-L", name]  # a tmux server of its own, ended with the test

    def tmux(*args: str) -> str:
        done = subprocess.run(
            [TMUX, *socket, *args], capture_output=True, text=True, timeout=10, check=False
        )
        return done.stdout

    def wait(text: str, timeout: float = 20.0) -> str:
        return wait_shown(lambda: tmux("capture-pane", "-p", "-t", name), text, timeout)

    subprocess.run(
        [TMUX, *socket, "new-session", "-d", "-s", name, "-x", "120", "-y", "60",
         "-c", str(tmp_path / "ws"), command],
        env=env, check=True, timeout=10,
    )  # fmt: skip
    try:
        wait("offline demo model")
        tmux("send-keys", "-t", name, "-l", "alpha line")
        tmux("send-keys", "-t", name, "M-Enter")
        tmux("send-keys", "-t", name, "-l", "beta line")
        tmux("send-keys", "-t", name, "C-j")
        tmux("send-keys", "-t", name, "-l", "gamma line")
        shown = wait("gamma line", 5.0)
        time.sleep(0.5)  # anything sent by mistake would show as a message by now
        shown = tmux("capture-pane", "-p", "-t", name)
        rows = shown.splitlines()
        at = [i for i, row in enumerate(rows) if "alpha line" in row]
        assert len(at) == 1, shown  # in the box only: nothing was sent
        assert "beta line" in rows[at[0] + 1], shown
        assert "gamma line" in rows[at[0] + 2], shown
        tmux("send-keys", "-t", name, "Enter")
        # the demo's answer to a message it does not know ("--model." ends it; the notice at
        # start names --model too, but never with the full stop)
        wait("--model.", 30.0)  # its last word: the view follows it down
        (session,) = (tmp_path / "data" / "tui-agent" / "sessions").glob("*.jsonl")
        records = [json.loads(line) for line in session.read_text().splitlines()]
        sent = [record["text"] for record in records if record["type"] == "user"]
        assert sent == ["alpha line\nbeta line\ngamma line"]
    finally:
        tmux("send-keys", "-t", name, "C-q")
        time.sleep(0.5)
        tmux("kill-server")
