"""Sessions to replay and clocks to replay them with.

``demo_session(root)`` runs the real ``tui-agent run "list the files" --profile demo --approve
read-only`` in an isolated home under ``root`` (offline model, instant pace) and returns the
session file. ``written_session(directory)`` writes, with the real SessionStore, a session that
holds a denied call, a rule approval, an invalid call, a withdrawn message and a turn cut
mid-arguments (Chat Completions raw events). The clocks make time stand still or move only when
a test says so.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tui_agent.session import SessionStore
from tui_agent.session.records import (
    AssistantRecord,
    DecisionRecord,
    RawEvent,
    ToolCallRecord,
    ToolResultRecord,
    ToolStartRecord,
    TruncatedRecord,
    UserRecord,
    WithdrawRecord,
)

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 60


def demo_env(root: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_DATA_HOME": str(root / "data"),
        "XDG_STATE_HOME": str(root / "state"),
        "XDG_CACHE_HOME": str(root / "cache"),
        "TUI_AGENT_DEMO_PACE": "0",
    }


def demo_session(root: Path) -> Path:
    """The session file of a real `tui-agent run` against the offline demo model."""
    for folder in ("config", "data", "state", "cache", "ws"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "ws" / "alpha.txt").write_text("alpha\n", encoding="utf-8")
    (root / "ws" / "README.md").write_text("# Sample\n", encoding="utf-8")
    argv = ["run", "list the files", "--profile", "demo", "--approve", "read-only"]
    argv += ["--workspace", str(root / "ws")]
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", *argv],
        cwd=root / "ws",
        env=demo_env(root),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [session] = (root / "data" / "tui-agent" / "sessions").glob("*.jsonl")
    return session


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    """One Chat Completions stream chunk."""
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return json.dumps({"id": "chatcmpl-w", "object": "chat.completion.chunk", "choices": [choice]})


def raw(datas: list[str], start: float = 0.5, gap: float = 0.25) -> list[RawEvent]:
    return [RawEvent(t=start + i * gap, event="message", data=d) for i, d in enumerate(datas)]


def call_delta(call_id: str, name: str, arguments: str, index: int = 0) -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {
        "tool_calls": [{"index": index, "id": call_id, "type": "function", "function": function}]
    }


def args_delta(arguments: str, index: int = 0) -> dict[str, Any]:
    return {"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}


READ_ARGS = '{"path": "notes.txt"}'
CUT_REASON = "the connection broke: RemoteProtocolError"


def written_session(directory: Path) -> Path:
    """A session written by SessionStore: every kind of decision, a withdrawal and a cut turn."""
    store = SessionStore(directory)
    writer = store.create(profile="p", protocol="openai-chat", model="m", workspace="/nowhere")
    t = 1000.0
    calls = [
        ToolCallRecord(id="call_A", name="read_file", arguments=READ_ARGS),
        ToolCallRecord(id="call_B", name="run_command", arguments='{"command": "rm -rf /"}'),
        ToolCallRecord(id="call_C", name="nope", arguments="{}"),
    ]
    first = raw(
        [
            chunk({"role": "assistant", "content": "Reading."}),
            chunk(call_delta("call_A", "read_file", READ_ARGS[:9])),
            chunk(args_delta(READ_ARGS[9:])),
            chunk(call_delta("call_B", "run_command", '{"command": "rm -rf /"}', 1)),
            chunk(call_delta("call_C", "nope", "{}", 2)),
            chunk({}, "tool_calls"),
            "[DONE]",
        ]
    )
    records: list[Any] = [
        UserRecord(ts=t, text="read notes.txt"),
        AssistantRecord(
            ts=t + 3.0,
            protocol="openai-chat",
            model="m",
            text="Reading.",
            reasoning="",
            tool_calls=calls,
            stop_reason="tool_calls",
            usage=None,
            response_id="chatcmpl-w",
            raw=first,
        ),
        DecisionRecord(
            ts=t + 3.1,
            call_id="call_C",
            decision="invalid",
            digest="",
            by="policy",
            reason="no tool named 'nope'",
        ),
        ToolResultRecord(
            ts=t + 3.1,
            call_id="call_C",
            name="nope",
            output="no tool named 'nope'",
            is_error=True,
            status="invalid",
        ),
        DecisionRecord(
            ts=t + 3.2,
            call_id="call_A",
            decision="approve",
            digest="d",
            by="rule",
            reason="tool read_file",
        ),
        DecisionRecord(
            ts=t + 9.0, call_id="call_B", decision="deny", digest="d", by="user", reason="too risky"
        ),
        ToolResultRecord(
            ts=t + 9.0,
            call_id="call_B",
            name="run_command",
            output="denied by user: too risky",
            is_error=True,
            status="denied",
        ),
        ToolStartRecord(ts=t + 9.1, call_id="call_A", digest="d"),
        ToolResultRecord(ts=t + 9.2, call_id="call_A", name="read_file", output="hello notes"),
        TruncatedRecord(
            ts=t + 12.0,
            protocol="openai-chat",
            model="m",
            reason="cut",
            error=CUT_REASON,
            stop_reason=None,
            text="Writing it",
            pending_calls=[{"id": "call_W", "name": "write_file"}],
            raw=raw(
                [
                    chunk({"role": "assistant", "content": "Writing it"}),
                    chunk(call_delta("call_W", "write_file", '{"path": "x", "con')),
                    chunk(args_delta('tent": "hal')),
                ]
            ),
        ),
        WithdrawRecord(ts=t + 15.0),
    ]
    for record in records:
        writer.append(record)
    writer.close()
    return writer.path


class FrozenClock:
    """Time stands still: a wait ends only when the player is woken (a key)."""

    def __init__(self) -> None:
        self.waits: list[float | None] = []

    def now(self) -> float:
        return 0.0

    async def wait(self, wake: asyncio.Event, timeout: float | None) -> bool:
        self.waits.append(timeout)
        await wake.wait()
        return True


class InstantClock:
    """Every wait's timeout passes at once (unless the player was already woken)."""

    def __init__(self) -> None:
        self.time = 0.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.time

    async def wait(self, wake: asyncio.Event, timeout: float | None) -> bool:
        if timeout is None or wake.is_set():
            await wake.wait()
            return True
        self.sleeps.append(timeout)
        self.time += timeout
        await asyncio.sleep(0)
        return False
