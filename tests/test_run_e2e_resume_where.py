"""A resumed session goes on where it was made: in its own workspace, against the same
server with the same model (an ad-hoc --protocol/--base-url profile too), unless the command
line says otherwise; the notice says which workspace and model. Real `tui-agent run`
subprocesses against the fake provider, the second one started from another folder with
only --session."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from .fake_provider import FakeProvider, Reply
from .run_helpers import KEY, MODEL, Home, final, read_call

pytestmark = pytest.mark.heavy


def _resume_argv(session: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tui_agent.cli", "run", "go on", "--session", session,
            "--approve", "all", *extra]  # fmt: skip


def test_resume_uses_the_recorded_workspace_server_and_model(home: Home, tmp_path: Path) -> None:
    (home.workspace / "notes.txt").write_text("the recorded workspace's notes\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("the wrong folder's notes\n")
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            final("openai-chat", "Hi."),
            Reply(read_call(), stop="tool_calls"),
            final("openai-chat", "Read it."),
        )
        first = home.run(server, "hello")
        assert first.code == 0, first.stderr
        found = re.match(r"session ([0-9a-z]+) \(new\)", first.session_line or "")
        assert found, first.stderr
        argv = _resume_argv(found.group(1))
        import subprocess

        done = subprocess.run(
            argv, cwd=elsewhere, env=home.env(), capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert len(server.requests) == 3, done.stderr  # the same server answered
        assert all(r.json["model"] == MODEL for r in server.requests)
        tool_result = str(server.requests[2].json["messages"])
        assert "the recorded workspace's notes" in tool_result
        assert "the wrong folder's notes" not in tool_result
        assert f"continuing in {home.workspace.resolve()} with {MODEL}" in done.stderr


def test_the_command_line_still_wins(home: Home, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("the named folder's notes\n")
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            final("openai-chat", "Hi."),
            Reply(read_call(), stop="tool_calls"),
            final("openai-chat", "Read it."),
        )
        first = home.run(server, "hello")
        found = re.match(r"session ([0-9a-z]+) \(new\)", first.session_line or "")
        assert found, first.stderr
        again = home.run(server, "go on", "--session", found.group(1), "--workspace", str(other))
        assert again.code == 0, again.stderr
        assert "the named folder's notes" in str(server.requests[2].json["messages"])
