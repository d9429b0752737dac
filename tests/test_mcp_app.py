"""MCP servers in the real app under Pilot: mcp-server-time's call approved by keypress, a slow
tool stopped by Esc, and a workspace .mcp.json that starts only once trusted by keypress."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time

import pytest

from tui_agent.ui.screens.trust_question import TrustQuestion
from tui_agent.ui.widgets.status_bar import StatusBar

from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider
from .mcp_helpers import own_server, server_table
from .support.clock import leap_until
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    running,
    send,
    wait_for,
    wait_idle_agent,
)

pytestmark = pytest.mark.heavy

PROTOCOL = "openai-chat"
WAIT_S = 30.0


def _config(env: AppEnv, text: str) -> None:
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")


def _results(env: AppEnv) -> dict[str, dict[str, object]]:
    return {r["call_id"]: r for r in env.records() if r["type"] == "tool_result"}


async def test_time_tool_approved_by_keypress(env: AppEnv) -> None:
    _config(env, server_table("time", "mcp_server_time", "--local-timezone", "UTC"))
    calls = call_ops(("call_T", "mcp__time__get_current_time", {"timezone": "UTC"}))
    expect = ExpectToolResults({"call_T": "day_of_week"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(calls, answer(PROTOCOL, "It is late.", expect=expect))
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the server", WAIT_S)
            await send(pilot, "what time is it?")
            await armed_prompt(pilot)
            text = screen_text(app)
            assert "mcp__time__get_current_time" in text and "execute" in text
            assert "claims" in text and "read-only" in text and "unverified" in text
            await pilot.press("y")
            await wait_idle_agent(pilot)
            server.assert_all_consumed()
    assert _results(env)["call_T"]["status"] == "done"


async def test_esc_stops_a_slow_tool_and_the_server_is_told(env: AppEnv) -> None:
    marks = env.root / "marks"
    marks.mkdir()
    table = own_server("edge", "edge")
    table = table.replace(
        "env = { PYTHONPATH", f"env = {{ MARK_DIR = {json.dumps(str(marks))}, PYTHONPATH"
    )
    _config(env, table)
    calls = call_ops(("call_S", "mcp__edge__slow", {}))
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(calls)
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the server", WAIT_S)
            await send(pilot, "sleep")
            await armed_prompt(pilot)
            await pilot.press("y")
            await wait_for(pilot, lambda: "tool_start" in env.types(), "the call to start")
            await wait_for(pilot, (marks / "started").exists, "the server to run it", WAIT_S)
            await pilot.press("escape")
            await wait_idle_agent(pilot)
            await wait_for(pilot, lambda: (marks / "cancelled").exists(), "the server's cancel")
    assert _results(env)["call_S"]["status"] == "interrupted"


async def test_workspace_file_starts_only_once_trusted(env: AppEnv) -> None:
    declared = {
        "mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    }
    (env.workspace / ".mcp.json").write_text(json.dumps(declared), encoding="utf-8")
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            await wait_for(
                pilot, lambda: ".mcp.json (1 MCP server)" in screen_text(app), "the question"
            )
            assert "arg 2: mcp_server_time" in screen_text(app)
            assert app.host is not None and app.host.mcp is None  # nothing started yet
            question = app.screen
            assert isinstance(question, TrustQuestion)
            await leap_until(pilot, question.guard.armed, "the question to arm")
            await pilot.press("t")
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the server", WAIT_S)
        async with running(server, env) as (app, pilot):  # trusted now: no question again
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the server", WAIT_S)
            assert ".mcp.json (1 MCP server)" not in screen_text(app)


async def test_ctrl_q_ends_a_stubborn_server_and_its_setsid_daemon(env: AppEnv) -> None:
    from .run_helpers import alive

    marks = env.root / "marks"
    marks.mkdir()
    _config(env, own_server("d", "daemon", "stubborn", env={"MARK_DIR": str(marks)}))
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the server", WAIT_S)
            pids = [int(pid) for pid in (marks / "pids").read_text().split()]
            assert all(alive(pid) for pid in pids)
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: not app.is_running, "the app to quit", WAIT_S)
    deadline = time.monotonic() + 15
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            for pid in pids:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            raise AssertionError("a server process outlived Ctrl+Q")
        await asyncio.sleep(0.05)


async def test_an_app_ended_from_outside_stops_its_server_as_asked(
    env: AppEnv, caplog: pytest.LogCaptureFixture
) -> None:
    """serve's closed tab ends the app with Textual's ExitApp, not Ctrl+Q: the session still
    closes, so the server is stopped, not found dead and reported as failed."""
    _config(env, server_table("time", "mcp_server_time", "--local-timezone", "UTC"))
    caplog.set_level("WARNING", logger="tui_agent")
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: status.mcp == "MCP 1/1 ready", "the server", WAIT_S)
            host = app.host
            app.exit()  # what serve's "quit" does
            await wait_for(pilot, lambda: not app.is_running, "the app to end")
    assert host is not None and host.closed
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert not failed, failed
