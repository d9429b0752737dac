"""`tui-agent run` as a subprocess, stopped from outside: Ctrl-C or SIGTERM stop the stream or
kill the running tool (never leave it behind). A run killed outright (SIGKILL) and resumed:
tests/hostile/test_persistence_resume.py."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from .fake_provider import FakeProvider, Reply, StallBeforeTerminal
from .run_helpers import KEY, Home, alive, finish, types, write_call
from .support.waiting import poll

pytestmark = pytest.mark.heavy

SIGNALS = [signal.SIGINT, signal.SIGTERM]


def _command_call(command: str, call_id: str = "toolu_S") -> list[tuple[Any, ...]]:
    args = json.dumps({"command": command})
    return [("call", 0, call_id, "run_command"), ("args", 0, args), ("close", 0)]


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("inherited", ["default", "ignored"])
def test_ctrl_c_during_the_stream_runs_nothing(home: Home, inherited: str) -> None:
    """Also when SIGINT comes inherited as ignored, as a shell's background job starts it."""
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(Reply(write_call("made.txt", "x" * 50), faults=StallBeforeTerminal()))
        process = subprocess.Popen(
            home.argv(server, "write the file", approve="all"),
            cwd=home.workspace,
            env=home.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ignore_sigint if inherited == "ignored" else None,
        )
        try:
            assert server.wait_stalled(15.0)
            time.sleep(0.2)
            process.send_signal(signal.SIGINT)
            done = finish(process)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert done.code == 2
    assert done.stderr == "tui-agent run: interrupted\n"
    assert not (home.workspace / "made.txt").exists()
    assert "assistant" not in types(home.records())


@pytest.mark.parametrize("sig", SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_a_tool_runs_kills_it(sig: signal.Signals, home: Home) -> None:
    ready = home.workspace / "ready.txt"
    # A sleep no other process runs: found by its command line (in the command's sandbox, $$
    # would be a PID of its own namespace, not the one seen from here).
    nap = f"{30 + os.getpid() % 1000 / 1000:.3f}"
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(_command_call(f"echo 1 > ready.txt; exec sleep {nap}")))
        process = home.start(server, "sleep", approve="all")
        pid = None
        try:
            not_yet = (OSError, ValueError)  # no file yet, or half written
            poll(lambda: int(ready.read_text()), "the tool to start", ignoring=not_yet)
            pid = _sleeping(nap)
            process.send_signal(sig)
            done = finish(process)
            poll(lambda: not alive(pid), "the tool's process to end with tui-agent run")
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
            if pid is not None and alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert done.code == 2
    assert done.stderr.endswith("tui-agent run: interrupted\n")
    records = home.records()
    kinds = [kind for kind in types(records) if not kind.startswith("checkpoint")]
    assert kinds[-2:] == ["tool_start", "tool_result"]
    assert records[-1]["status"] == "interrupted"


def _sleeping(nap: str, timeout: float = 10.0) -> int:
    """The PID (as seen here) of the ``sleep NAP`` process."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if (entry / "cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", nap.encode()]:
                    return int(entry.name)
        time.sleep(0.05)
    raise AssertionError(f"no process runs sleep {nap}")
