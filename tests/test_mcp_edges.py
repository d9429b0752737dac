"""Our own small MCP servers (tests/mcp_servers/) for what real servers do now and then: a slow
tool cancelled, a crash mid-call, huge output, a schema no validator accepts, images, isError,
a changed tool list, HTTP with a bearer token, and a server that never answers initialize."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_agent.agent.call_results import cap_output
from tui_agent.mcp.config import McpServerConfig
from tui_agent.mcp.servers import McpEvent, McpServers
from tui_agent.stream.turn import ToolCall
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import ToolContext
from tui_agent.tools.validation import InvalidCall, ValidatedCall, validate_call

from .support.waiting import ends

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parent.parent


def _python(module: str, *args: str, **keys: object) -> McpServerConfig:
    env = {"PYTHONPATH": str(ROOT), **dict(keys.pop("env", {}))}  # type: ignore[call-overload]
    return McpServerConfig.model_validate(
        {"command": sys.executable, "args": ["-m", module, *args], "env": env, **keys}
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and ") Z" in status.read_text())


async def _started(
    configs: dict[str, McpServerConfig], workspace: Path
) -> tuple[McpServers, list[McpEvent]]:
    servers = McpServers(configs, workspace)
    events: list[McpEvent] = []
    servers.listen(events.append)
    servers.start()
    await servers.wait_ready()
    return servers, events


async def _call(
    registry: ToolRegistry, name: str, arguments: str, ctx: ToolContext
) -> tuple[str, bool]:
    checked = validate_call(registry, ToolCall("c", name, arguments))
    assert isinstance(checked, ValidatedCall), checked
    output = await checked.spec.run(checked.args, ctx)
    return output.text, output.is_error


async def test_edge_server(tmp_path: Path) -> None:
    config = _python("tests.mcp_servers.edge", env={"MARK_DIR": str(tmp_path)}, tool_timeout=30)
    servers, events = await _started({"edge": config}, tmp_path)
    ctx = ToolContext(workspace=tmp_path)
    try:
        registry = ToolRegistry(servers.tool_specs())
        names = set(registry.names())
        assert "mcp__edge__count" in names and "mcp__edge__bad" not in names
        notices = [e.text for e in events if e.kind == "notice"]
        assert any("'bad' is not offered" in text and "no-such-type" in text for text in notices)
        # Strict: 1.0, "1", true are not integers; a missing or extra key is refused.
        for wrong in (
            '{"n": 1.0}',
            '{"n": "1"}',
            '{"n": true}',
            "{}",
            '{"n": 1, "m": 2}',
            '{"n": 0}',
            '{"n": 1, "n": 2}',
            '{"n": 99999999999999999999}',
        ):
            assert isinstance(
                validate_call(registry, ToolCall("c", "mcp__edge__count", wrong)), InvalidCall
            ), wrong
        assert await _call(registry, "mcp__edge__count", '{"n": 3}', ctx) == (
            '1 2 3\nstructured content:\n{\n  "n": 3\n}',
            False,
        )
        text, error = await _call(registry, "mcp__edge__picture", "{}", ctx)
        assert (
            text
            == "[image: image/png, 1004 bytes; not sent: the tool's image is not an image that can "
            "be read]\n[resource file:///notes.txt: text/plain, 5 bytes]"
        )
        assert await _call(registry, "mcp__edge__fails", "{}", ctx) == ("it went wrong", True)
        text, error = await _call(registry, "mcp__edge__huge", "{}", ctx)
        capped = cap_output(text, 65536)
        assert len(capped.encode()) < 70_000 and "output cut: 2934464 of 3000000 bytes" in capped
        # A changed tool list is followed.
        changed = asyncio.Event()
        servers.listen(lambda e: changed.set() if "changed its tools" in e.text else None)
        assert await _call(registry, "mcp__edge__grow", "{}", ctx) == ("grown", False)
        await asyncio.wait_for(changed.wait(), 10)
        await servers.tools_settled()  # adapted in a worker thread after the change
        assert "mcp__edge__added" in {spec.name for spec in servers.tool_specs()}
        # Cancelling the call (Esc) sends notifications/cancelled: the server's handler stops.
        checked = validate_call(registry, ToolCall("c", "mcp__edge__slow", "{}"))
        assert isinstance(checked, ValidatedCall)
        task = asyncio.create_task(checked.spec.run(checked.args, ctx))
        deadline = time.monotonic() + 10
        while not (tmp_path / "started").exists():  # the server runs it: a cancel has a handler
            assert time.monotonic() < deadline, "the server never started the call"
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        deadline = time.monotonic() + 10
        while not (tmp_path / "cancelled").exists():
            assert time.monotonic() < deadline, "the server never saw the cancellation"
            await asyncio.sleep(0.05)
        # A crash mid-call: an error result, the server failed, its stderr in the notice.
        text, error = await _call(registry, "mcp__edge__crash", "{}", ctx)
        assert error and "stopped during the call" in text
        assert servers.connections["edge"].status == "failed"
        assert any("about to crash" in e.text for e in events if e.kind == "notice")
        assert servers.summary() == "MCP 0/1 ready"
        text, error = await _call(registry, "mcp__edge__count", '{"n": 1}', ctx)
        assert error and "not running" in text
        # Restart brings it back, then stop ends it and its child.
        await servers.restart("edge")
        await servers.wait_ready()
        assert servers.connections["edge"].status == "ready"
    finally:
        await servers.stop()
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"still alive: {pids}"
        await asyncio.sleep(0.05)


async def test_a_server_that_never_answers_initialize_fails_with_its_stderr(tmp_path: Path) -> None:
    config = _python("tests.mcp_servers.silent", startup_timeout=1.5)
    # The silent server never answers: only the 1.5 s start-up timeout ends the wait for it.
    servers, events = await ends(_started({"mute": config}, tmp_path), "the start")
    try:
        connection = servers.connections["mute"]
        assert connection.status == "failed"
        assert "did not answer initialize" in (connection.error or "")
        assert any("silent server: up" in e.text for e in events if e.kind == "notice")
        assert servers.tool_specs() == []
    finally:
        await servers.stop()


async def test_http_on_loopback_with_a_bearer_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port_file = tmp_path / "port"
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp_servers.http_token", str(port_file), "s3cret-token"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 20
        while not port_file.exists() or not port_file.read_text():
            assert time.monotonic() < deadline and process.poll() is None
            await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{port_file.read_text()}/mcp"
        monkeypatch.setenv("MCP_TEST_TOKEN", "s3cret-token")
        good = McpServerConfig(url=url, headers={"Authorization": "Bearer ${MCP_TEST_TOKEN}"})
        bad = McpServerConfig(url=url, headers={"Authorization": "Bearer wrong"}, startup_timeout=5)
        servers, _ = await _started({"docs": good, "nope": bad}, tmp_path)
        try:
            assert servers.connections["docs"].status == "ready"
            assert servers.connections["nope"].status == "failed"
            registry = ToolRegistry(servers.tool_specs())
            ctx = ToolContext(workspace=tmp_path)
            text, error = await _call(registry, "mcp__docs__shout", '{"text": "hi"}', ctx)
            assert text.startswith("HI\n") and not error
            assert "s3cret-token" in servers.secrets()
        finally:
            await servers.stop()
    finally:
        process.terminate()
        process.wait(10)
