"""A stdio MCP server and everything it started end with it and with the app: a ``setsid``
daemon it left behind, after ``run`` ends and after the app is killed with SIGKILL (the server
ignoring EOF and SIGTERM). Real ``tui-agent run`` processes, real servers started the way the
person's config starts them."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tui_agent.mcp.config import McpServerConfig
from tui_agent.mcp.servers import McpServers

from ..fake_provider import FakeProvider, HeadersThenSilence, Reply
from ..mcp_helpers import own_server
from ..run_helpers import KEY, Home, alive, final

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux process tree")
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
