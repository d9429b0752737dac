"""A call is checked against the tools its request offered, not the registry at the turn's end:
a tool that arrived while the model answered (an MCP server that became ready) is unknown to
the model, so a call to it is invalid, never asked about and never run. The real Agent over the
fake provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.agent.events import CallInvalid, ToolStarted
from tui_agent.approval import Decision

from .agent_helpers import NAP_TOOL, ScriptedApprover, agent_over, answer, call_ops, of_type
from .fake_provider import FakeProvider, Reply
from .mcp_helpers import own_server
from .ui_app_helpers import KEY, make_env, running, send, wait_idle_agent, wait_text

PROTOCOL = "openai-chat"


async def test_a_tool_the_request_did_not_offer_is_unknown(tmp_path: Path) -> None:
    approver = ScriptedApprover()  # any question would be "unexpected" and fail the test
    steps = [
        Reply(call_ops(("call_1", "nap", {"seconds": "0"})), stop="tool_calls"),
        answer(PROTOCOL, "ok"),
    ]
    async with agent_over(PROTOCOL, tmp_path, *steps, tools=[NAP_TOOL], approver=approver) as h:
        assert h.agent.calls.registry.get("nap") is not None
        # The request goes out without it, as while its MCP server was still starting.
        h.agent.tools = [tool for tool in h.agent.tools if tool.name != "nap"]
        sent = list(h.agent.tools)
        events = await h.send("take a nap")
        (invalid,) = of_type(events, CallInvalid)
        assert invalid.call_id == "call_1" and "unknown tool 'nap'" in invalid.error
        assert "nap" not in invalid.error.partition("available tools:")[2].split(", ")
        assert of_type(events, ToolStarted) == []
        assert approver.requests == []
        assert [t.name for t in sent] == [t.name for t in h.agent.tools]


async def test_an_offered_tool_still_runs(tmp_path: Path) -> None:
    steps = [
        Reply(call_ops(("call_1", "nap", {"seconds": "0"})), stop="tool_calls"),
        answer(PROTOCOL, "ok"),
    ]
    approver = ScriptedApprover(Decision("approve"))
    async with agent_over(PROTOCOL, tmp_path, *steps, tools=[NAP_TOOL], approver=approver) as h:
        events = await h.send("take a nap")
        assert of_type(events, CallInvalid) == []
        assert [e.call_id for e in of_type(events, ToolStarted)] == ["call_1"]


async def test_the_app_says_when_mcp_tools_are_not_ready_for_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server still starting: the message goes without its tools, and the transcript says so."""
    env = make_env(tmp_path, monkeypatch)
    folder = tmp_path / "config" / "tui-agent"
    folder.mkdir(parents=True)
    table = own_server("slowpoke", "silent", startup_timeout=120)
    (folder / "config.toml").write_text(table, encoding="utf-8")
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(answer(PROTOCOL, "hi"))
        async with running(server, env) as (_app, pilot):
            await send(pilot, "hello")
            await wait_text(pilot, "slowpoke still starting")
            await wait_idle_agent(pilot)
