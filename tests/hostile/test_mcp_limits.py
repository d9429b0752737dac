"""A stdio MCP server that floods its client is bounded, with the cause in the message: a result
nested 200,000 deep, a result or an answer larger than the message limit, a junk line, 5,000
tools, a schema of doubling ``$ref``s, a storm of ``tools/list_changed``. Each test runs the
hand-written server tests/mcp_servers/flood.py, started the way the person's config starts it."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest

from tui_agent.mcp.config import McpServerConfig
from tui_agent.mcp.limits import McpLimits
from tui_agent.mcp.servers import McpEvent, McpServers
from tui_agent.stream.turn import ToolCall
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import ToolContext
from tui_agent.tools.validation import ValidatedCall, validate_call

from ..fake_provider import FakeProvider
from ..mcp_helpers import own_server
from ..run_helpers import KEY, Home, final

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parent.parent.parent
MiB = 1024 * 1024


def _flood(mode: str, *args: str, marks: Path | None = None) -> McpServerConfig:
    env = {"PYTHONPATH": str(ROOT)}
    if marks is not None:
        env["MARK_DIR"] = str(marks)
    return McpServerConfig(
        command=sys.executable,
        args=["-m", "tests.mcp_servers.flood", mode, *args],
        env=env,
        tool_timeout=30,  # the old code waited it out: a test of it fails, slowly
    )


async def _started(
    config: McpServerConfig, workspace: Path, limits: McpLimits | None = None
) -> tuple[McpServers, list[McpEvent]]:
    servers = McpServers({"f": config}, workspace, limits)
    events: list[McpEvent] = []
    servers.listen(events.append)
    servers.start()
    await servers.wait_ready()
    return servers, events


async def _call(servers: McpServers, name: str, workspace: Path) -> tuple[str, bool]:
    registry = ToolRegistry(servers.tool_specs())
    checked = validate_call(registry, ToolCall("c", name, "{}"))
    assert isinstance(checked, ValidatedCall), checked
    output = await checked.spec.run(checked.args, ToolContext(workspace=workspace))
    return output.text, output.is_error


async def test_a_result_nested_200000_deep_fails_the_call_with_its_cause(tmp_path: Path) -> None:
    servers, _ = await _started(_flood("ping"), tmp_path)
    try:
        text, error = await _call(servers, "mcp__f__deep", tmp_path)
        assert error and "nested more than 200 levels deep" in text, text[:300]
        # The connection goes on: the next call is answered.
        assert await _call(servers, "mcp__f__ping", tmp_path) == ("pong", False)
    finally:
        await servers.stop()


async def test_a_result_over_the_message_limit_fails_the_call_with_its_cause(
    tmp_path: Path,
) -> None:
    limits = McpLimits(max_message_bytes=1 * MiB)
    servers, _ = await _started(_flood("ping", "3000000"), tmp_path, limits)
    try:
        text, error = await _call(servers, "mcp__f__big", tmp_path)
        assert error, text[:300]
        assert "more than the 1,048,576 allowed (setting mcp_max_message_bytes)" in text, text[:300]
        assert await _call(servers, "mcp__f__ping", tmp_path) == ("pong", False)
    finally:
        await servers.stop()


async def test_an_initialize_answer_over_the_limit_fails_the_server_with_its_cause(
    tmp_path: Path,
) -> None:
    limits = McpLimits(max_message_bytes=1 * MiB)
    servers, events = await _started(_flood("hugeinit", "3000000"), tmp_path, limits)
    try:
        connection = servers.connections["f"]
        assert connection.status == "failed"
        assert "more than the 1,048,576 allowed" in (connection.error or "")
        assert any("mcp_max_message_bytes" in e.text for e in events if e.kind == "notice")
    finally:
        await servers.stop()


async def test_a_junk_line_over_the_limit_is_dropped_with_a_log_line(tmp_path: Path) -> None:
    limits = McpLimits(max_message_bytes=1 * MiB)
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("tui_agent.mcp")  # (the app's log setup may stop propagation)
    logger.addHandler(handler)
    try:
        servers, _ = await _started(_flood("junk", "3000000"), tmp_path, limits)
    finally:
        logger.removeHandler(handler)
    try:
        assert servers.connections["f"].status == "ready"
        said = [record.getMessage() for record in records]
        assert any("3,000,000 bytes, more than the 1,048,576" in line for line in said), said
    finally:
        await servers.stop()


async def test_a_schema_of_doubling_refs_is_refused_with_a_notice(tmp_path: Path) -> None:
    servers, events = await _started(_flood("refs", "18"), tmp_path)
    try:
        names = {spec.name for spec in servers.tool_specs()}
        assert "mcp__f__ping" in names and "mcp__f__refs" not in names
        notices = [e.text for e in events if e.kind == "notice"]
        assert any("'refs' is not offered" in n and "$refs are inlined" in n for n in notices)
    finally:
        await servers.stop()


async def test_a_storm_of_list_changed_is_coalesced(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    limits = McpLimits(list_changed_interval_s=0.5, max_tools=500)
    servers, _ = await _started(_flood("ping", "200", marks=marks), tmp_path, limits)
    try:
        assert await _call(servers, "mcp__f__storm", tmp_path) == ("storming", False)
        connection = servers.connections["f"]
        for _ in range(600):  # until the last change is followed (the storm takes ~2 s)
            if any(tool.name == "t199" for tool in connection.tools):
                break
            await asyncio.sleep(0.05)
        await servers.tools_settled()
        assert any(spec.name == "mcp__f__t199" for spec in servers.tool_specs())
        lists = len((marks / "lists").read_text().splitlines()) - 1  # the first, at start
        assert connection.refreshes == lists
        assert 1 <= lists <= 40, f"{lists} tools/list for 200 announced changes"
    finally:
        await servers.stop()


def test_five_thousand_tools_offer_at_most_the_cap_with_a_notice(home: Home) -> None:
    home.write_config(
        "[settings]\nmcp_max_tools = 100\n" + own_server("f", "flood", "many", "5000")
    )
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(final(server.protocol, "Done."))
        done = home.run(server, "hi")
        tools = server.requests[0].json["tools"]
    assert done.code == 0, done.stderr
    offered = [tool["function"]["name"] for tool in tools]
    mcp = [name for name in offered if name.startswith("mcp__")]
    assert len(mcp) == 100
    assert mcp[:4] == ["mcp__f__ping", "mcp__f__deep", "mcp__f__big", "mcp__f__storm"]
    said = done.stdout + done.stderr
    assert "4,904 of 5,004 tools not offered" in said and "mcp_max_tools" in said, said


async def test_an_http_answer_over_the_limit_or_too_deep_fails_the_call_with_its_cause(
    tmp_path: Path,
) -> None:
    import subprocess
    import time

    port_file = tmp_path / "port"
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp_servers.http_flood", str(port_file)],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text()):
            assert time.monotonic() < deadline and server.poll() is None, "no server"
            await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{port_file.read_text()}/mcp"
        config = McpServerConfig(url=url, tool_timeout=30)
        limits = McpLimits(max_message_bytes=1 * MiB)
        servers, _ = await _started(config, tmp_path, limits)
        try:
            assert servers.connections["f"].status == "ready", servers.connections["f"].error
            text, error = await _call(servers, "mcp__f__big", tmp_path)
            assert error and "more than the 1,048,576 bytes allowed" in text, text[:300]
            text, error = await _call(servers, "mcp__f__deep", tmp_path)
            assert error and "recursion limit" in text, text[:300]
            assert await _call(servers, "mcp__f__ping", tmp_path) == ("pong", False)
        finally:
            await servers.stop()
    finally:
        server.kill()
        server.wait()
