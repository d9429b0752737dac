"""A 200 KB answer streamed at full speed reaches the screen to its last line, in a real terminal
(tmux, 120x40, isolated HOME and XDG folders), from the fake provider on loopback (issue 19).
Skipped when tmux is not installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, Reply
from tests.support.tmux import tmux_env, wait_shown
from tests.ui_transcript_helpers import chunks, sample_markdown

TMUX = shutil.which("tmux")
pytestmark = [
    pytest.mark.heavy,
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed"),
]
KEY_ENV = "FAKE_PROVIDER_KEY"
KEY = "fake-key-for-tmux"


def _env(tmp_path: Path) -> dict[str, str]:
    env = tmux_env(tmp_path, **{KEY_ENV: KEY})
    # A known context window: the app asks the server nothing but the one scripted request.
    (tmp_path / "config" / "tui-agent").mkdir()
    (tmp_path / "config" / "tui-agent" / "config.toml").write_text(
        "[settings]\ncontext_window = 200000\n", encoding="utf-8"
    )
    return env


def test_a_200_kb_answer_at_full_speed_shows_its_last_line(tmp_path: Path) -> None:
    last_line = f"The very last line {uuid.uuid4().hex[:12]}."
    answer = sample_markdown(200_000, seed=19) + "\n\n" + last_line + "\n"
    deltas = chunks(answer, 10_000, seed=19)
    name = f"tui-agent-stream-{uuid.uuid4().hex[:8]}"
    socket = ["-L", name]  # a tmux server of its own, ended with the test

    def tmux(*args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, *socket, *args], capture_output=True, text=True, timeout=10, check=False
        )
        return done.stdout

    def wait(text: str, timeout: float) -> str:
        return wait_shown(lambda: tmux("capture-pane", "-p", "-t", name), text, timeout)

    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply([("text", delta) for delta in deltas], stop="stop"))
        command = (
            f"{sys.executable} -m tui_agent --protocol openai-chat --model fake-model"
            f" --base-url {server.base_url} --api-key-env {KEY_ENV}"
            f" --workspace {tmp_path / 'ws'}"
        )
        subprocess.run(
            [TMUX or "tmux", *socket, "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
             "-c", str(tmp_path / "ws"), command],
            env=_env(tmp_path), check=True, timeout=10,
        )  # fmt: skip
        try:
            wait("fake-model", 30.0)
            tmux("send-keys", "-t", name, "-l", "write a long answer")
            tmux("send-keys", "-t", name, "Enter")
            shown = wait(last_line, 60.0)  # the end of the answer, on screen: followed too
            assert last_line in shown
            server.assert_all_consumed()
        finally:
            tmux("send-keys", "-t", name, "C-q")
            time.sleep(0.5)
            tmux("kill-server")
