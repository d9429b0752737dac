"""A stdio MCP server runs unconfined: nothing the sandboxed agent can write may decide what it
runs. Each test plants code where today's start would pick it up and starts the server the way
the person's config (or a trusted workspace file) starts it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tui_agent.mcp.servers import McpServers
from tui_agent.mcp.workspace_file import read_workspace_servers

from ..mcp_helpers import server_table
from ..run_helpers import Home

pytestmark = pytest.mark.heavy

PLANTED = """import pathlib
pathlib.Path({marker!r}).write_text("ran")
raise SystemExit(0)
"""


def _listed(home: Home, env: dict[str, str] | None = None) -> dict[str, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent.cli", "mcp", "list", "--json"],
        env=env or home.env(),
        capture_output=True,
        text=True,
        timeout=90,
        cwd=home.workspace,
    )
    assert done.returncode == 0, done.stderr
    return {server["name"]: server for server in json.loads(done.stdout)}


def test_a_module_planted_in_the_workspace_is_not_what_python_m_runs(home: Home) -> None:
    # The person's own server, `python -m mcp_server_time`, no cwd: today it starts in the
    # workspace, so a planted mcp_server_time.py shadows the installed package.
    marker = home.root / "planted-ran"
    (home.workspace / "mcp_server_time.py").write_text(PLANTED.format(marker=str(marker)))
    home.write_config(server_table("time", "mcp_server_time"))
    listed = _listed(home)
    assert not marker.exists(), "the module planted in the workspace ran"
    assert listed["time"]["status"] == "ready", listed


def test_a_program_planted_on_a_workspace_path_entry_is_not_started(home: Home) -> None:
    # The app's own PATH names a folder of the workspace (and "" = the start folder) before the
    # real one: a planted program of the server's name would win the lookup.
    real = Path(sys.executable).parent / "mcp-server-time"
    assert real.exists()
    marker = home.root / "planted-ran"
    planted_dir = home.workspace / "bin"
    planted_dir.mkdir()
    for folder in (planted_dir, home.workspace):
        planted = folder / "mcp-server-time"
        planted.write_text(f"#!/bin/sh\necho ran > {marker}\n")
        planted.chmod(planted.stat().st_mode | stat.S_IXUSR)
    env = home.env()
    env["PATH"] = os.pathsep.join([str(planted_dir), "", "bin", str(real.parent), env["PATH"]])
    home.write_config('[mcp_servers.time]\ncommand = "mcp-server-time"\n')
    listed = _listed(home, env)
    assert not marker.exists(), "the program planted in the workspace ran"
    assert listed["time"]["status"] == "ready", listed


async def test_a_workspace_file_cannot_start_its_server_inside_the_workspace(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    marker = tmp_path / "planted-ran"
    (workspace / "mcp_server_time.py").write_text(PLANTED.format(marker=str(marker)))
    argv = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
    servers_json = {
        "mcpServers": {
            "here": {**argv, "cwd": "."},
            "sub": {**argv, "cwd": str(workspace / "sub")},
            "path": {**argv, "env": {"PYTHONPATH": str(workspace)}},
            "relative": {**argv, "env": {"PYTHONPATH": "lib"}},
            "options": {**argv, "env": {"PYTHONSTARTUP": "/etc/hostname"}},
            "plain": argv,
        }
    }
    (workspace / "sub").mkdir()
    (workspace / ".mcp.json").write_text(json.dumps(servers_json))
    declared = read_workspace_servers(workspace)
    assert declared is not None
    with_cwd = declared.servers["here"]
    assert with_cwd.from_workspace
    servers = McpServers(declared.servers, workspace)
    servers.start()
    try:
        await servers.wait_ready()
        status = {c.name: (c.status, c.error or "") for c in servers.connections.values()}
    finally:
        await servers.stop()
    assert not marker.exists()
    assert status["plain"][0] == "ready", status
    for name, why in (
        ("here", "cwd '.' is inside the workspace"),
        ("sub", "is inside the workspace"),
        ("path", "env PYTHONPATH entry"),
        ("relative", "env PYTHONPATH entry 'lib' is relative"),
        ("options", "env PYTHONSTARTUP is refused"),
    ):
        assert status[name][0] == "failed" and why in status[name][1], (name, status[name])


async def test_the_person_s_own_config_may_start_a_server_in_the_workspace(
    tmp_path: Path,
) -> None:
    from tui_agent.mcp.config import McpServerConfig

    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = McpServerConfig(command=sys.executable, args=["-m", "x"], cwd=str(workspace))
    assert config.start_folder(workspace) == workspace
    assert McpServerConfig(command="x").start_folder(workspace) != workspace


async def test_a_server_gets_no_key_and_no_path_into_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui_agent.mcp.config import McpServerConfig
    from tui_agent.stream.turn import ToolCall
    from tui_agent.tools.registry import ToolRegistry
    from tui_agent.tools.spec import ToolContext
    from tui_agent.tools.validation import ValidatedCall, validate_call

    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-FAKE0123456789abcdefXYZ")
    monkeypatch.setenv("PATH", os.pathsep.join([str(workspace), "", ".", os.environ["PATH"]]))
    root = Path(__file__).resolve().parent.parent.parent
    config = McpServerConfig(
        command=sys.executable,
        args=["-m", "tests.mcp_servers.echo_env"],
        env={"PYTHONPATH": str(root)},
    )
    servers = McpServers({"echo": config}, workspace)
    servers.start()
    try:
        await servers.wait_ready()
        registry = ToolRegistry(servers.tool_specs())
        seen = {}
        for name in ("OPENAI_API_KEY", "PYTHONSAFEPATH", "PATH"):
            call = ToolCall("c", "mcp__echo__show", json.dumps({"name": name}))
            checked = validate_call(registry, call)
            assert isinstance(checked, ValidatedCall), checked
            output = await checked.spec.run(checked.args, ToolContext(workspace=workspace))
            seen[name] = output.text.splitlines()[0].split("=", 1)[1]
    finally:
        await servers.stop()
    assert seen["OPENAI_API_KEY"] == ""
    assert seen["PYTHONSAFEPATH"] == "1"
    entries = seen["PATH"].split(os.pathsep)
    assert entries and all(os.path.isabs(e) and not e.startswith(str(workspace)) for e in entries)


async def test_a_workspace_file_cannot_give_its_server_a_workspace_file_to_run(
    tmp_path: Path,
) -> None:
    """`python /ws/server.py` from a .mcp.json: trust covers the JSON, not server.py, which a
    sandboxed command can rewrite before the next (unconfined) start. Refused, whatever the
    argument's form; arguments outside the workspace still start."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    marker = tmp_path / "planted-ran"
    (workspace / "server.py").write_text(PLANTED.format(marker=str(marker)))
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    servers_json = {
        "mcpServers": {
            "script": {"command": sys.executable, "args": [str(workspace / "server.py")]},
            "later": {"command": sys.executable, "args": [str(workspace / "not-yet.py")]},
            "option": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_time", f"--config={workspace / 'c.toml'}"],
            },
            "plain": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_time", f"--data={outside}"],
            },
        }
    }
    (workspace / ".mcp.json").write_text(json.dumps(servers_json))
    declared = read_workspace_servers(workspace)
    assert declared is not None
    servers = McpServers(declared.servers, workspace)
    servers.start()
    try:
        await servers.wait_ready()
        status = {c.name: (c.status, c.error or "") for c in servers.connections.values()}
    finally:
        await servers.stop()
    assert not marker.exists(), "the workspace's server.py ran"
    for name in ("script", "later", "option"):
        assert status[name][0] == "failed", (name, status[name])
        assert "inside the workspace" in status[name][1], (name, status[name])
    assert status["plain"][0] != "failed" or "inside the workspace" not in status["plain"][1]
