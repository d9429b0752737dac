"""`tui-agent run` with real MCP servers nobody here wrote (mcp-server-time, mcp-server-git):
the model is offered their tools and a scripted call makes the round trip."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .mcp_helpers import call_ops, server_table
from .run_helpers import KEY, Home, final

pytestmark = pytest.mark.heavy


def _offered(server: FakeProvider) -> list[str]:
    tools = server.requests[0].json["tools"]
    return [tool["function"]["name"] for tool in tools]


def test_time_server_round_trip_with_approve_all(home: Home) -> None:
    home.write_config(server_table("time", "mcp_server_time", "--local-timezone", "UTC"))
    arguments = '{"timezone": "UTC"}'
    expect = ExpectToolResults({"call_T": '"timezone": "UTC"'})
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(
                call_ops(0, "call_T", "mcp__time__get_current_time", arguments), stop="tool_calls"
            ),
            final(server.protocol, "It is now.", expect),
        )
        done = home.run(server, "what time is it", "--json", approve="all")
        server.assert_all_consumed()
        offered = _offered(server)
    assert done.code == 0, done.stderr
    assert "mcp__time__get_current_time" in offered
    assert "mcp__time__convert_time" in offered
    records = home.records()
    (result,) = [r for r in records if r["type"] == "tool_result"]
    assert result["status"] == "done" and '"day_of_week"' in result["output"]
    lists = [r for r in records if r["type"] == "tools"]
    assert len(lists) == 1  # one list, offered by both requests
    names = [tool["name"] for tool in lists[0]["tools"]]
    assert "mcp__time__get_current_time" in names
    assert all(len(tool["schema_hash"]) == 64 for tool in lists[0]["tools"])


def test_time_server_asks_by_default_and_run_never_denies_quietly(home: Home) -> None:
    # read-only mode: the server claims read-only, but only the person can say so.
    home.write_config(server_table("time", "mcp_server_time"))
    arguments = '{"timezone": "UTC"}'
    expect = ExpectToolResults({"call_T": "not approved"})
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(
                call_ops(0, "call_T", "mcp__time__get_current_time", arguments), stop="tool_calls"
            ),
            final(server.protocol, "Ok.", expect),
        )
        done = home.run(server, "time?", approve="read-only")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr


def test_git_server_round_trip_and_read_only_tools(home: Home) -> None:
    repo = home.workspace
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("hello\n", encoding="utf-8")
    table = server_table(
        "git", "mcp_server_git", "--repository", str(repo), read_only_tools=["git_status"]
    )
    home.write_config(table)
    arguments = f'{{"repo_path": {repo.as_posix()!r}}}'.replace("'", '"')
    expect = ExpectToolResults({"call_G": "a.txt"})
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(call_ops(0, "call_G", "mcp__git__git_status", arguments)),
            final(server.protocol, "Untracked.", expect),
        )
        done = home.run(server, "status?", "--json", approve="read-only")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    decided = [e for e in done.events() if e["type"] == "call_decided"]
    assert decided[0]["decision"] == "approve" and decided[0]["by"] == "policy"


def test_mcp_list_json_shows_tools_and_risks(home: Home) -> None:
    home.write_config(
        server_table("time", "mcp_server_time", read_only_tools=["convert_time"])
        + server_table("off", "mcp_server_time", enabled=False)
        + '[mcp_servers.broken]\ncommand = "no-such-program-here"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "tui_agent.cli", "mcp", "list", "--json"],
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=home.workspace,
    )
    assert done.returncode == 0, done.stderr
    import json

    listed = {server["name"]: server for server in json.loads(done.stdout)}
    assert listed["time"]["status"] == "ready"
    risks = {tool["name"]: tool["risk"] for tool in listed["time"]["tools"]}
    assert risks == {"mcp__time__get_current_time": "execute", "mcp__time__convert_time": "read"}
    assert listed["off"]["status"] == "disabled" and listed["off"]["tools"] == []
    assert listed["broken"]["status"] == "failed"
    assert "no-such-program-here" in listed["broken"]["error"]
