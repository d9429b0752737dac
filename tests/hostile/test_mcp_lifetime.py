"""A stdio MCP server and everything it started end with it and with the app: a ``setsid``
daemon it left behind, after ``run`` ends and after the app is killed with SIGKILL (the server
ignoring EOF and SIGTERM). Real ``tui-agent run`` processes, real servers started the way the
person's config starts them."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tui_agent.mcp.config import McpServerConfig
from tui_agent.mcp.servers import McpServers
from tui_agent.sandbox.pids_cgroup import pids_parent

from ..fake_provider import FakeProvider, HeadersThenSilence, Reply
from ..mcp_helpers import own_server
from ..run_helpers import KEY, Home, alive, final

pytestmark = [
    pytest.mark.heavy,
    pytest.mark.skipif(sys.platform != "linux", reason="Linux process tree"),
]
GONE_WITHIN_S = 15.0


def _pids(marks: Path, timeout: float = 30.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while not (marks / "pids").exists():
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    return [int(pid) for pid in (marks / "pids").read_text().split()]


def _gone(pids: list[int]) -> None:
    deadline = time.monotonic() + GONE_WITHIN_S
    try:
        while any(alive(pid) for pid in pids):
            assert time.monotonic() < deadline, f"still running: {[p for p in pids if alive(p)]}"
            time.sleep(0.05)
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("mode", ["plain", "stubborn"])
def test_a_servers_setsid_daemon_ends_when_run_ends(home: Home, mode: str) -> None:
    marks = home.root / "marks"
    marks.mkdir()
    args = ("stubborn",) if mode == "stubborn" else ()
    home.write_config(own_server("d", "daemon", *args, env={"MARK_DIR": str(marks)}))
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(final(server.protocol, "Done."))
        done = home.run(server, "hi")
    assert done.code == 0, done.stderr
    _gone(_pids(marks))


def test_a_stubborn_server_and_its_daemon_end_when_the_app_is_killed(home: Home) -> None:
    marks = home.root / "marks"
    marks.mkdir()
    home.write_config(own_server("d", "daemon", "stubborn", env={"MARK_DIR": str(marks)}))
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply([("text", "never")], faults=HeadersThenSilence()))
        app = home.start(server, "hi")
        try:
            pids = _pids(marks)
            deadline = time.monotonic() + 60
            while not server.requests:  # the server is ready: the first request went out
                assert app.poll() is None, app.communicate()
                assert time.monotonic() < deadline, "no request"
                time.sleep(0.05)
            app.send_signal(signal.SIGKILL)
            app.wait(timeout=10)
        finally:
            if app.poll() is None:
                app.kill()
            app.communicate()
    _gone(pids)


async def test_stopping_the_servers_ends_a_stubborn_server_and_its_daemon(
    tmp_path: Path,
) -> None:
    root = Path(__file__).resolve().parent.parent.parent
    config = McpServerConfig(
        command=sys.executable,
        args=["-m", "tests.mcp_servers.daemon", "stubborn"],
        env={"PYTHONPATH": str(root), "MARK_DIR": str(tmp_path)},
    )
    servers = McpServers({"d": config}, tmp_path)
    servers.start()
    await servers.wait_ready()
    assert servers.connections["d"].status == "ready", servers.connections["d"].error
    pids = _pids(tmp_path)
    await servers.stop()
    _gone(pids)


def _lifeline_of(app_pid: int) -> int:
    """The lifeline process the app started (its child running lifeline.py)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat[1]) == app_pid and any(arg.endswith(b"lifeline.py") for arg in argv):
            return int(entry.name)
    raise AssertionError("no lifeline below the app")


needs_cgroup = pytest.mark.skipif(
    pids_parent() is None, reason="needs root and a pids cgroup to make groups in"
)


@needs_cgroup
async def test_a_killed_lifeline_leaves_nothing_once_the_server_is_lost(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent.parent
    config = McpServerConfig(
        command=sys.executable,
        args=["-m", "tests.mcp_servers.daemon", "stubborn"],
        env={"PYTHONPATH": str(root), "MARK_DIR": str(tmp_path)},
    )
    servers = McpServers({"d": config}, tmp_path)
    servers.start()
    await servers.wait_ready()
    connection = servers.connections["d"]
    assert connection.status == "ready", connection.error
    pids = _pids(tmp_path)
    os.kill(_lifeline_of(os.getpid()), signal.SIGKILL)  # as the OOM killer would
    try:
        for _ in range(400):
            if connection.status == "failed":
                break
            await asyncio.sleep(0.05)
        assert connection.status == "failed"
    finally:
        await servers.stop()
    _gone(pids)


@needs_cgroup
def test_the_next_app_sweeps_what_a_killed_app_and_lifeline_left(home: Home) -> None:
    marks = home.root / "marks"
    marks.mkdir()
    home.write_config(own_server("d", "daemon", "stubborn", env={"MARK_DIR": str(marks)}))
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply([("text", "never")], faults=HeadersThenSilence()))
        app = home.start(server, "hi")
        try:
            pids = _pids(marks)
            deadline = time.monotonic() + 60
            while not server.requests:
                assert app.poll() is None, app.communicate()
                assert time.monotonic() < deadline, "no request"
                time.sleep(0.05)
            lifeline = _lifeline_of(app.pid)
            os.kill(lifeline, signal.SIGSTOP)  # it cannot act on the app's death...
            os.kill(lifeline, signal.SIGKILL)  # ...and dies too, as after a kill of both
            app.send_signal(signal.SIGKILL)
            app.wait(timeout=10)
        finally:
            if app.poll() is None:
                app.kill()
            app.communicate()
    time.sleep(0.5)
    assert all(alive(pid) for pid in pids), "nothing was left to sweep"
    listed = home.run_argv([sys.executable, "-m", "tui_agent.cli", "mcp", "list", "--json"])
    assert listed.code == 0, listed.stderr
    _gone(pids)
