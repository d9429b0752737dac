"""`tui-agent acp` when a turn does not end well: session/cancel mid-stream, while a call waits
for its permission or while a command runs; a provider stream cut inside a call's arguments;
an answer cut at the token limit; a second prompt while one runs; the client going away; a
profile that is not there. Nothing of such a turn runs, no assistant turn is saved, and the
prompt ends with the stop reason or an error that says so. The SDK's client drives it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from . import wire
from .acp_helpers import Agent, Recorder, acp_agent
from .fake_provider import FakeProvider, Reply, Reset, StallBeforeTerminal
from .run_helpers import KEY, Home, alive, final, write_call
from .support.waiting import poll

pytestmark = pytest.mark.heavy

TARGET = "made.txt"
CONTENT = "A" * 400  # long enough that a cut lands inside the arguments
WAIT_S = 20.0


def _records(home: Home) -> list[dict[str, Any]]:
    (path,) = home.sessions()
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def _types(home: Home) -> list[str]:
    return [r["type"] for r in _records(home)]


def _statuses(updates: list[Any]) -> list[str]:
    return [u.status for u in updates if getattr(u, "status", None)]


async def _prompt_task(agent: Agent, session_id: str, text: str) -> asyncio.Task[Any]:
    return asyncio.ensure_future(agent.prompt(session_id, text))


async def test_cancel_mid_stream_runs_nothing(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(write_call(TARGET, CONTENT), faults=StallBeforeTerminal()),
            final(server.protocol, "Still here."),
        )
        async with acp_agent(home, server) as agent:
            session_id = await agent.new_session(home.workspace)
            prompt = await _prompt_task(agent, session_id, "write the file")
            assert await server.wait_stalled_async(WAIT_S)
            await agent.client.seen("tool_call")  # the call was announced: its name only
            await agent.conn.cancel(session_id=session_id)
            response = await asyncio.wait_for(prompt, WAIT_S)
            server.release()
            assert response.stop_reason == "cancelled"
            assert not (home.workspace / TARGET).exists()
            updates = agent.client.of_call("call_W")
            assert _statuses(updates) == ["pending", "failed"]
            assert "not run" in updates[-1].content[0].content.text
            assert agent.client.asked == []
            again = await agent.prompt(session_id, "are you there?")  # the session goes on
        server.assert_all_consumed()
    assert again.stop_reason == "end_turn"
    assert not (home.workspace / TARGET).exists()
    assert _types(home) == ["header", "user", "truncated", "user", "assistant"]


async def test_cancel_while_the_client_is_asked_runs_nothing(home: Home) -> None:
    client = Recorder(answers=["cancelled"], hold=asyncio.Event())
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(write_call(TARGET, "x"), stop="tool_calls"))
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            prompt = await _prompt_task(agent, session_id, "write the file")
            await asyncio.wait_for(client.asking.wait(), WAIT_S)
            await agent.conn.cancel(session_id=session_id)
            assert client.hold is not None
            client.hold.set()  # as the protocol asks: the pending question answered cancelled
            response = await asyncio.wait_for(prompt, WAIT_S)
        server.assert_all_consumed()
    assert response.stop_reason == "cancelled"
    assert not (home.workspace / TARGET).exists()
    assert _statuses(client.of_call("call_W"))[-1] == "failed"
    records = _records(home)
    assert not [r for r in records if r["type"] == "tool_start"]
    (result,) = [r for r in records if r["type"] == "tool_result"]
    assert result["status"] == "cancelled"


def _inside_arguments(protocol: str, ops: list[Any]) -> int:
    body = wire.BUILDERS[protocol](ops)
    first, last = body.find(b"AAAAAAAA"), body.rfind(b"AAAAAAAA")
    assert 0 < first < last
    return (first + last) // 2


async def test_a_stream_cut_inside_the_arguments_runs_nothing(home: Home) -> None:
    client = Recorder(answers=["allow_once"])  # never asked: nothing complete to ask about
    ops = write_call(TARGET, CONTENT)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(ops, faults=Reset(_inside_arguments(server.protocol, ops))))
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            with pytest.raises(RequestError) as raised:
                await agent.prompt(session_id, "write the file")
        server.assert_all_consumed()
    assert "the stream ended before the provider finished" in str(raised.value)
    assert not (home.workspace / TARGET).exists()
    assert client.asked == []
    assert _statuses(client.of_call("call_W")) == ["pending", "failed"]
    assert _types(home) == ["header", "user", "truncated"]


async def test_an_answer_cut_at_the_token_limit_ends_with_max_tokens(home: Home) -> None:
    client = Recorder(answers=["allow_once"])
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply([("text", "I will write "), *write_call(TARGET, CONTENT)], stop="length"),
        )
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            response = await agent.prompt(session_id, "write the file")
        server.assert_all_consumed()
    assert response.stop_reason == "max_tokens"
    assert not (home.workspace / TARGET).exists()
    assert client.asked == []
    assert client.text() == "I will write "
    assert _types(home) == ["header", "user", "truncated"]


def _command_call(command: str, call_id: str = "call_C") -> list[Any]:
    arguments = json.dumps({"command": command})
    return [("call", 0, call_id, "run_command"), ("args", 0, arguments), ("close", 0)]


async def test_cancel_while_a_command_runs_stops_it(home: Home) -> None:
    client = Recorder(answers=["allow_once"])
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(_command_call("sleep 60"), stop="tool_calls"))
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            prompt = await _prompt_task(agent, session_id, "wait a minute")
            await client.seen_status("call_C", "in_progress")
            await agent.conn.cancel(session_id=session_id)
            response = await asyncio.wait_for(prompt, WAIT_S)
        server.assert_all_consumed()
    assert response.stop_reason == "cancelled"
    assert _statuses(client.of_call("call_C"))[-1] == "failed"
    (result,) = [r for r in _records(home) if r["type"] == "tool_result"]
    assert result["status"] == "interrupted"
    assert len(server.requests) == 1  # the model was not sent the result: the turn ended


def test_a_profile_that_is_not_there_is_a_usage_error(home: Home) -> None:
    done = home.run_argv([sys.executable, "-m", "tui_agent.cli", "acp", "--profile", "nope"])
    assert done.code == 1
    assert "tui-agent acp:" in done.stderr and "nope" in done.stderr
    assert done.stdout == ""


async def test_a_second_prompt_while_one_runs_is_refused(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(Reply([("text", "thinking it over")], faults=StallBeforeTerminal()))
        async with acp_agent(home, server) as agent:
            session_id = await agent.new_session(home.workspace)
            first = await _prompt_task(agent, session_id, "one")
            assert await server.wait_stalled_async(WAIT_S)
            with pytest.raises(RequestError) as raised:
                await agent.prompt(session_id, "two")
            await agent.conn.cancel(session_id=session_id)
            response = await asyncio.wait_for(first, WAIT_S)
            server.release()
        server.assert_all_consumed()
    assert "already running" in str(raised.value.data)
    assert response.stop_reason == "cancelled"
    assert [r.get("text") for r in _records(home) if r["type"] == "user"] == ["one"]


def _sleeping(nap: str) -> int | None:
    """The PID (as seen here) of the ``sleep NAP`` process (in the command's sandbox, $$ would
    be a PID of its own namespace)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", nap.encode()]:
                    return int(entry.name)
    return None


async def test_the_client_going_away_ends_the_agent_and_its_command(home: Home) -> None:
    nap = f"{40 + os.getpid() % 1000 / 1000:.3f}"  # a sleep no other process runs
    client = Recorder(answers=["allow_once"])
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(_command_call(f"exec sleep {nap}"), stop="tool_calls"))
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            prompt = await _prompt_task(agent, session_id, "wait")
            await client.seen_status("call_C", "in_progress")
            pid = await asyncio.to_thread(poll, lambda: _sleeping(nap), "the command to start")
            try:
                assert agent.process.stdin is not None
                agent.process.stdin.close()  # the editor closed the connection
                code = await asyncio.wait_for(agent.process.wait(), WAIT_S)
                await asyncio.to_thread(poll, lambda: not alive(pid), "the command to end")
            finally:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                await prompt
    assert code == 0
    (result,) = [r for r in _records(home) if r["type"] == "tool_result"]
    assert result["status"] == "interrupted"
