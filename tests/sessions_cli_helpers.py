"""Session files for the `tui-agent sessions` / `export` tests, written by the real store.

``Cli(tmp_path, monkeypatch)`` points the XDG folders at ``tmp_path`` (in this process and for
subprocesses), and runs the command line either in process (``cli.main``, fast) or as a real
``tui-agent`` subprocess (``cli.spawn``). ``conversation(store)`` writes a session that holds
every kind of thing an export must show.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tui_agent import cli
from tui_agent.session import SessionStore
from tui_agent.session.records import (
    AssistantRecord,
    DecisionRecord,
    NoteRecord,
    RawEvent,
    ToolCallRecord,
    ToolResultRecord,
    ToolStartRecord,
    TruncatedRecord,
    UserRecord,
    WithdrawRecord,
)

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 60.0


@dataclass
class Out:
    code: int
    stdout: str
    stderr: str

    def error_line(self) -> str:
        """The one line a failure prints on stderr (asserts it is exactly one, no traceback)."""
        lines = self.stderr.strip().splitlines()
        assert len(lines) == 1, self.stderr
        assert "Traceback" not in self.stderr
        return lines[0]


class Cli:
    """An isolated user: XDG folders under ``root``."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.data = root / "data"
        self.config = root / "config"
        self.workspace = root / "ws"
        for folder in (self.data, self.config, self.workspace, root / "state", root / "cache"):
            folder.mkdir(parents=True, exist_ok=True)
        for name, value in self.xdg().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("TZ", "UTC")
        self.store = SessionStore()
        assert self.store.directory == self.data / "tui-agent" / "sessions"

    def xdg(self) -> dict[str, str]:
        return {
            "XDG_DATA_HOME": str(self.data),
            "XDG_CONFIG_HOME": str(self.config),
            "XDG_STATE_HOME": str(self.root / "state"),
            "XDG_CACHE_HOME": str(self.root / "cache"),
        }

    def main(self, *argv: str) -> Out:
        """``tui-agent ARGV`` in this process (stdin is whatever pytest gives: not a TTY)."""
        buffer = io.BytesIO()
        stdout = io.TextIOWrapper(buffer, encoding="utf-8", write_through=True)
        stderr = io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            try:
                code = cli.main(list(argv))
            except SystemExit as exc:  # argparse
                code = int(exc.code or 0)
        stdout.flush()
        return Out(code, buffer.getvalue().decode(), stderr.getvalue())

    def env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.root),
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "PYTHONPATH": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
            **self.xdg(),
        }

    def spawn(self, *argv: str, stdin: Any = subprocess.DEVNULL) -> Out:
        """The real ``tui-agent ARGV`` as a subprocess (stdin: not a TTY unless given one)."""
        done = subprocess.run(
            [sys.executable, "-m", "tui_agent", *argv],
            cwd=self.workspace,
            env=self.env(),
            stdin=stdin,
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )
        return Out(done.returncode, done.stdout.decode(), done.stderr.decode())

    def session(self, *texts: str, title: str | None = None, workspace: str | None = None) -> str:
        """A session of user messages each answered by an assistant turn; returns its id."""
        with self.store.create(
            profile="default",
            protocol="openai-chat",
            model="m1",
            workspace=workspace or str(self.workspace),
            title=title,
        ) as writer:
            for text in texts:
                writer.append(UserRecord(text=text))
                writer.append(assistant(f"answer to {text}"))
        return writer.session_id

    def set_updated(self, session_id: str, ts: float) -> None:
        path = self.store.resolve(session_id)
        os.utime(path, (ts, ts))

    def listed(self, *argv: str) -> list[dict[str, Any]]:
        out = self.main("sessions", "--json", *argv)
        assert out.code == 0, out.stderr
        rows: list[dict[str, Any]] = json.loads(out.stdout)
        return rows


def assistant(text: str, *calls: ToolCallRecord, reasoning: str = "") -> AssistantRecord:
    return AssistantRecord(
        protocol="openai-chat",
        model="m1",
        text=text,
        reasoning=reasoning,
        tool_calls=list(calls),
        stop_reason="tool_calls" if calls else "stop",
        usage={"prompt_tokens": 3},
        response_id="resp_1",
        raw=[
            RawEvent(t=0.1, event="", data=json.dumps({"choices": [{"delta": {"content": text}}]}))
        ],
    )


def call(call_id: str, name: str, **arguments: Any) -> ToolCallRecord:
    return ToolCallRecord(id=call_id, name=name, arguments=json.dumps(arguments))


def decision(call_id: str, kind: str, by: str = "user", **extra: Any) -> DecisionRecord:
    return DecisionRecord(call_id=call_id, decision=kind, digest="d" * 64, by=by, **extra)  # type: ignore[arg-type]


def result(call_id: str, name: str, output: str, status: str = "done") -> ToolResultRecord:
    return ToolResultRecord(
        call_id=call_id,
        name=name,
        output=output,
        is_error=status != "done",
        status=status,  # type: ignore[arg-type]
    )


FENCED_OUTPUT = "a ``` fence and a ```` longer one"


def conversation(store: SessionStore, workspace: str = "/w") -> str:
    """A session holding every kind of thing an export shows; returns its id.

    Messages: 1 user, 2 assistant (5 calls: approved, denied, edited, invalid, refused),
    3 assistant (answers), 4 user (its turn discarded, then withdrawn), 5 user,
    6 assistant (a call approved by rule that never got a result).
    """
    with store.create(
        profile="default", protocol="openai-chat", model="m1", workspace=workspace
    ) as writer:
        for record in conversation_records():
            writer.append(record)
    return writer.session_id


def conversation_records() -> list[Any]:
    return [
        UserRecord(text="Look around and clean up"),
        assistant(
            "Let me look.",
            call("c1", "read_file", path="notes.txt"),
            call("c2", "run_command", command="rm -rf build"),
            call("c3", "write_file", path="a.txt", content="x"),
            call("c4", "read_file", path=5),
            call("c5", "search_text", pattern="todo"),
            reasoning="The user wants a tidy folder.",
        ),
        decision("c4", "invalid", "policy", reason="path: must be a string"),
        decision("c1", "approve", "user"),
        decision("c2", "deny", "user", reason="not now"),
        decision("c3", "edit", "user", arguments='{"content":"y","path":"b.txt"}'),
        decision("c5", "refused", "policy", reason="arguments too large"),
        result("c4", "read_file", "path: must be a string", "invalid"),
        result("c2", "run_command", "denied by user: not now", "denied"),
        result("c5", "search_text", "refused: arguments too large", "denied"),
        ToolStartRecord(call_id="c1", digest="d" * 64),
        result("c1", "read_file", FENCED_OUTPUT),
        ToolStartRecord(call_id="c3", digest="d" * 64),
        result("c3", "write_file", "wrote b.txt"),
        assistant("Done: **notes.txt** read, b.txt written."),
        UserRecord(text="Now run the tests"),
        TruncatedRecord(
            protocol="openai-chat",
            model="m1",
            reason="cut",
            error="the connection closed before the response ended",
            stop_reason=None,
            text="Running the",
            pending_calls=[{"id": "c6", "name": "run_command"}],
            raw=[],
        ),
        WithdrawRecord(),
        UserRecord(text="List the folder"),
        assistant("Listing.", call("c7", "list_dir", path=".")),
        decision("c7", "approve", "rule", reason="always allow list_dir"),
        ToolStartRecord(call_id="c7", digest="d" * 64),
        NoteRecord(kind="notice", text="the app stopped here"),
    ]
