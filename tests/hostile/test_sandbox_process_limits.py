"""Tool processes are bounded in number and never outlive tui-agent: many concurrent searches
run at most MAX_TOOL_PROCESSES at a time, and SIGHUP/SIGTERM of `run` or of the app kill every
tool process first (each runs in its own session, so the default signal action would leave it)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tui_agent.tools.builtin.search_text import SearchTextArgs, run_search_text
from tui_agent.tools.process_limits import MAX_TOOL_PROCESSES
from tui_agent.tools.spec import ToolContext

from ..fake_provider import FakeProvider, Reply
from ..run_helpers import KEY, ROOT, Home, JsonLines
from .processes import running_with

SEARCHES = 40


def _gone(marker: str, timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := running_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


async def test_concurrent_searches_never_exceed_the_process_bound(
    tmp_path: Path, marker: str
) -> None:
    for n in range(300):
        (tmp_path / f"f{n}.txt").write_text("needle\n" * 200, encoding="utf-8")
    most = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal most
        while not stop.is_set():
            most = max(most, len(running_with(marker)))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    ctx = ToolContext(workspace=tmp_path, protected=(), secret_values=())
    try:
        outputs = await asyncio.gather(
            *(
                run_search_text(SearchTextArgs(pattern="needle", path="."), ctx)
                for _ in range(SEARCHES)
            )
        )
    finally:
        stop.set()
        sampler.join()
    assert all(not out.is_error for out in outputs)
    assert 0 < most <= MAX_TOOL_PROCESSES, (most, MAX_TOOL_PROCESSES)
    assert _gone(marker) == []


def test_sighup_of_run_kills_the_running_tool(tmp_path: Path, marker: str) -> None:
    home = Home(tmp_path)
    call = [
        ("call", 0, "call_S", "run_command"),
        ("args", 0, json.dumps({"command": "sleep 60"})),
        ("close", 0),
    ]
    with FakeProvider("openai-chat", api_key=KEY, check_on_exit=False) as server:
        server.script(Reply(call, stop="tool_calls"), Reply([("text", "ok")], stop="stop"))
        process = subprocess.Popen(
            home.argv(server, "sleep", "--json", approve="all"),
            cwd=home.workspace,
            env=home.env() | {marker: "1"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        with JsonLines(process) as events:
            events.wait_for("tool_started")
            deadline = time.monotonic() + 10
            while not any(p != process.pid for p in running_with(marker)):
                assert time.monotonic() < deadline, "the command never started"
                time.sleep(0.05)
            process.send_signal(signal.SIGHUP)
            done = events.finish()
    assert done.code == 2, done.stderr
    assert _gone(marker) == []


_APP_CHILD = """
import asyncio, sys
from pathlib import Path
from tui_agent.tools.process import run_in_process_group
from tui_agent.tools.process_limits import install_exit_signals

install_exit_signals()
async def main():
    task = asyncio.ensure_future(run_in_process_group(
        ["sleep", "60"], cwd=Path("."), env=dict(__import__("os").environ),
        timeout_s=120, output_cap=100))
    await asyncio.sleep(0.3)
    print("started", flush=True)
    await task
asyncio.run(main())
"""


def test_the_apps_signal_handlers_kill_every_tool_process(marker: str) -> None:
    """What `tui-agent` (the app) installs: on SIGTERM or SIGHUP the tools' groups die first."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        child = subprocess.Popen(
            [sys.executable, "-c", _APP_CHILD],
            cwd=ROOT,
            env=os.environ | {marker: "1"},
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        assert len(running_with(marker)) >= 2  # the interpreter and its tool
        child.send_signal(signum)
        assert child.wait(10) == -signum
        assert _gone(marker) == []
