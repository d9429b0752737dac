"""`tui-agent acp` runs a tool call only from a complete, validated turn, and only once the
client approved it (session/request_permission) or the approval mode or a rule did; what it
shows of the call is what runs, no key reaches it, and `tui-agent rewind` undoes its writes.
The SDK's own client drives the subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from .acp_helpers import Recorder, acp_agent
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .run_helpers import KEY, Home, final, read_call, write_call

pytestmark = pytest.mark.heavy

NOTES = "the notes say: ship on friday\n"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    (made.workspace / "notes.txt").write_text(NOTES, encoding="utf-8")
    return made


def _statuses(updates: list[Any]) -> list[str]:
    return [u.status for u in updates if getattr(u, "status", None)]


async def test_an_approved_write_runs_and_its_result_is_streamed(home: Home) -> None:
    client = Recorder(answers=["allow_once"])
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(write_call("made.txt", "hello there\n"), stop="tool_calls"),
            final(server.protocol, "Written.", ExpectToolResults({"call_W": "made.txt"})),
        )
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            response = await agent.prompt(session_id, "write the file")
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    assert (home.workspace / "made.txt").read_text("utf-8") == "hello there\n"
    (asked, options) = client.asked[0]
    assert len(client.asked) == 1
    assert asked.raw_input == {"path": "made.txt", "content": "hello there\n"}
    assert asked.kind == "edit"
    assert asked.title == "write_file: made.txt"
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    updates = client.of_call("call_W")
    assert updates[0].session_update == "tool_call"
    start = updates[0]
    assert (start.title, start.kind, start.status) == ("write_file", "edit", "pending")
    assert updates[0].raw_input is None  # nothing of the arguments while they stream
    shown = [u for u in updates if u.raw_input is not None]
    assert shown[0].raw_input == {"path": "made.txt", "content": "hello there\n"}
    assert shown[0].locations[0].path == str(home.workspace / "made.txt")
    assert _statuses(updates) == ["pending", "in_progress", "completed"]
    last = updates[-1]
    diff, text = last.content
    assert (diff.type, diff.old_text, diff.new_text) == ("diff", None, "hello there\n")
    assert "made.txt" in text.content.text
    assert client.text() == "Written."
    results = [json.loads(line) for line in home.sessions()[0].read_text("utf-8").splitlines()]
    assert [r["status"] for r in results if r["type"] == "tool_result"] == ["done"]


async def test_a_denied_call_does_not_run_and_the_model_is_told(home: Home) -> None:
    client = Recorder(answers=["reject_once"])
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(write_call("made.txt", "nope")),
            final(server.protocol, "Fine.", ExpectToolResults({"call_W": "denied by user"})),
        )
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            response = await agent.prompt(session_id, "write the file")
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    assert not (home.workspace / "made.txt").exists()
    updates = client.of_call("call_W")
    assert _statuses(updates) == ["pending", "failed"]
    assert "denied by user" in updates[-1].content[-1].content.text
    records = [json.loads(line) for line in home.sessions()[0].read_text("utf-8").splitlines()]
    assert not [r for r in records if r["type"] == "tool_start"]


async def test_what_the_approval_mode_allows_is_not_asked(home: Home) -> None:
    home.write_config('[approval]\nmode = "auto-read"\n')
    client = Recorder()  # any question would be answered "cancelled"
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(read_call(), stop="tool_calls"),
            final(server.protocol, "Friday.", ExpectToolResults({"call_R": "ship on friday"})),
        )
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            response = await agent.prompt(session_id, "read the notes")
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    assert client.asked == []
    updates = client.of_call("call_R")
    assert _statuses(updates) == ["pending", "in_progress", "completed"]
    assert updates[0].kind == "read"
    assert [u.raw_input for u in updates if u.raw_input] == [{"path": "notes.txt"}]
    assert "ship on friday" in updates[-1].content[-1].content.text


async def test_always_allow_keeps_the_rule_for_the_session(home: Home) -> None:
    client = Recorder(answers=["allow_always"])
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(read_call("call_1"), stop="tool_calls"),
            final(server.protocol, "One."),
            Reply(read_call("call_2"), stop="tool_calls"),
            final(server.protocol, "Two.", ExpectToolResults({"call_2": "ship on friday"})),
        )
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            first = await agent.prompt(session_id, "read it")
            second = await agent.prompt(session_id, "read it again")
        server.assert_all_consumed()
    assert (first.stop_reason, second.stop_reason) == ("end_turn", "end_turn")
    assert len(client.asked) == 1  # the second read ran under the kept rule
    assert _statuses(client.of_call("call_2")) == ["pending", "in_progress", "completed"]


async def test_the_approval_modes_are_the_sessions_modes(home: Home) -> None:
    client = Recorder()  # any question would be answered "cancelled"
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(read_call(), stop="tool_calls"),
            final(server.protocol, "Friday.", ExpectToolResults({"call_R": "ship on friday"})),
        )
        async with acp_agent(home, server, client=client) as agent:
            opened = await agent.conn.new_session(cwd=str(home.workspace), mcp_servers=[])
            with pytest.raises(RequestError):
                await agent.conn.set_session_mode(session_id=opened.session_id, mode_id="yolo")
            await agent.conn.set_session_mode(session_id=opened.session_id, mode_id="auto-read")
            response = await agent.prompt(opened.session_id, "read the notes")
        server.assert_all_consumed()
    assert opened.modes is not None
    assert opened.modes.current_mode_id == "ask"
    assert [m.id for m in opened.modes.available_modes] == ["ask", "plan", "auto-read", "auto-all"]
    assert response.stop_reason == "end_turn"
    assert client.asked == []  # auto-read ran the read without a question
    assert _statuses(client.of_call("call_R")) == ["pending", "in_progress", "completed"]


async def test_no_key_reaches_the_client(home: Home) -> None:
    """The profile's key, in the model's text (split across deltas), in a call's arguments and
    in its output, is redacted in every update; the file gets what the call says."""
    client = Recorder(answers=["allow_once"])
    half = len(KEY) // 2
    ops = [("text", f"the key is {KEY[:half]}"), ("text", f"{KEY[half:]} ok ")]
    ops += write_call("key.txt", f"key={KEY}\n")
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(ops, stop="tool_calls"), final(server.protocol, f"again {KEY}"))
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            await agent.prompt(session_id, "tell me the key")
        server.assert_all_consumed()
    assert (home.workspace / "key.txt").read_text("utf-8") == f"key={KEY}\n"
    seen = json.dumps([u.model_dump(mode="json") for u in client.updates])
    seen += json.dumps(
        [(c.model_dump(mode="json"), [o.model_dump() for o in opts]) for c, opts in client.asked]
    )
    assert KEY not in seen and KEY[:half] not in seen and KEY[half:] not in seen
    assert "[REDACTED]" in client.text()
    assert client.asked[0][0].raw_input["content"] != f"key={KEY}\n"


async def test_a_write_over_acp_is_undone_by_rewind(home: Home) -> None:
    client = Recorder(answers=["allow_once"])
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(write_call("notes.txt", "overwritten\n")),
            final(server.protocol, "Done."),
        )
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            await agent.prompt(session_id, "overwrite the notes")
        server.assert_all_consumed()
    assert (home.workspace / "notes.txt").read_text("utf-8") == "overwritten\n"
    argv = [sys.executable, "-m", "tui_agent.cli", "rewind", session_id, "--to", "1"]
    done = home.run_argv([*argv, "--files-only"])
    assert done.code == 0, done.stderr
    assert (home.workspace / "notes.txt").read_text("utf-8") == NOTES


def _task_call(arguments: str) -> list[tuple[Any, ...]]:
    return [("call", 0, "call_T", "task"), ("args", 0, arguments), ("close", 0)]


async def test_a_subagents_calls_are_shown_and_asked_as_its_own(home: Home) -> None:
    task = json.dumps({"description": "notes", "prompt": "Read notes.txt", "agent": "explore"})
    client = Recorder(answers=["allow_once", "allow_once"])  # the task, then the subagent's read
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(_task_call(task), stop="tool_calls"),
            Reply([("text", "Reading. "), *read_call("sub_R")], stop="tool_calls"),
            final(server.protocol, "The notes say friday."),
            final(server.protocol, "Friday."),
        )
        async with acp_agent(home, server, client=client) as agent:
            session_id = await agent.new_session(home.workspace)
            response = await agent.prompt(session_id, "what do the notes say?")
        server.assert_all_consumed()
    assert response.stop_reason == "end_turn"
    assert client.text() == "Friday."  # the subagent's own text is not the answer
    (task_ask, _), (read_ask, _) = client.asked
    assert task_ask.tool_call_id == "call_T"
    assert read_ask.tool_call_id == "sub_R" and read_ask.raw_input == {"path": "notes.txt"}
    assert read_ask.title.startswith("subagent explore")
    inner = client.of_call("sub_R")
    assert inner[0].session_update == "tool_call" and inner[0].title == "explore: read_file"
    assert _statuses(inner) == ["pending", "in_progress", "completed"]
    assert "ship on friday" in inner[-1].content[-1].content.text
    outer = client.of_call("call_T")
    assert _statuses(outer)[-1] == "completed"
    assert "The notes say friday." in outer[-1].content[-1].content.text
