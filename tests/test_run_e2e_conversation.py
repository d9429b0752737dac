"""`tui-agent run` as a subprocess: a two-step tool conversation in each protocol, approval
modes, --json and --session, against the fake provider over real sockets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import wire
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .run_helpers import KEY, Home, final, read_call, types, write_call

pytestmark = pytest.mark.heavy

PROTOCOLS = list(wire.BUILDERS)
NOTES = "the notes say: ship on friday\n"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    (made.workspace / "notes.txt").write_text(NOTES, encoding="utf-8")
    return made


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_two_step_read_file_conversation(protocol: str, home: Home) -> None:
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(read_call()),
            final(protocol, "It ships on Friday.", ExpectToolResults({"call_R": "ship on friday"})),
        )
        done = home.run(server, "when do we ship?", approve="read-only")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert done.stdout == "It ships on Friday.\n"
    assert "Traceback" not in done.stderr
    records = home.records()
    assert types(records) == [
        "header",
        "user",
        "assistant",
        "decision",
        "tool_start",
        "tool_result",
        "assistant",
    ]
    header, user, first, decision, start, result, last = records
    assert (header["protocol"], header["model"]) == (protocol, "fake-model")
    assert user["text"] == "when do we ship?"
    assert [(c["id"], c["name"], json.loads(c["arguments"])) for c in first["tool_calls"]] == [
        ("call_R", "read_file", {"path": "notes.txt"})
    ]
    assert first["raw"], "the complete turn keeps its raw events"
    assert (decision["call_id"], decision["decision"]) == ("call_R", "approve")
    assert start["call_id"] == "call_R" and start["digest"] == decision["digest"]
    assert (result["call_id"], result["status"]) == ("call_R", "done")
    assert "ship on friday" in result["output"]
    assert last["text"] == "It ships on Friday." and not last["tool_calls"]
    assert last["raw"]


def test_approve_all_runs_write_file(home: Home) -> None:
    protocol = "gemini"
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(write_call("out/hello.txt", "hello\n")),
            final(protocol, "Written.", ExpectToolResults({"call_W": None})),
        )
        done = home.run(server, "write it", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert (home.workspace / "out" / "hello.txt").read_text("utf-8") == "hello\n"
    assert [r["status"] for r in home.records() if r["type"] == "tool_result"] == ["done"]


def test_approve_read_only_denies_write_file(home: Home) -> None:
    protocol = "openai-responses"
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            Reply(write_call("hello.txt", "hello\n")),
            final(protocol, "Fine.", ExpectToolResults({"call_W": "not approved"})),
        )
        done = home.run(server, "write it", approve="read-only")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert not (home.workspace / "hello.txt").exists()
    records = home.records()
    assert "tool_start" not in types(records)
    (result,) = [r for r in records if r["type"] == "tool_result"]
    assert result["status"] == "denied" and "--approve read-only" in result["output"]
    assert "[write_file] deny" in done.stderr


def test_approve_never_denies_read_file_too(home: Home) -> None:
    with FakeProvider("gemini-interactions", api_key=KEY) as server:
        server.script(
            Reply(read_call()),
            final(server.protocol, "Okay.", ExpectToolResults({"call_R": "not approved"})),
        )
        done = home.run(server, "read it", approve="never")
        server.assert_all_consumed()
        second = server.requests[1]
    assert done.code == 0, done.stderr
    assert "ship on friday" not in second.body.decode("utf-8")
    assert "tool_start" not in types(home.records())


def test_json_output_is_one_typed_object_per_line(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(read_call()), final(server.protocol, "Done."))
        done = home.run(server, "read it", "--json", approve="read-only")
    assert done.code == 0, done.stderr
    events = done.events()
    assert all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in events)
    kinds = [e["type"] for e in events]
    wanted = [
        "turn_started",
        "tool_call_announced",
        "turn_completed",
        "call_decided",
        "tool_started",
        "tool_finished",
        "turn_started",
        "text",
        "turn_completed",
        "loop_ended",
    ]
    at = 0
    for kind in kinds:  # the wanted kinds appear in this order (others may come between)
        if at < len(wanted) and kind == wanted[at]:
            at += 1
    assert at == len(wanted), kinds
    assert events[-1] == {"type": "loop_ended", "outcome": "complete", "message": ""}
    completed = [e for e in events if e["type"] == "turn_completed"]
    assert completed[0]["turn"]["tool_calls"][0]["id"] == "call_R"
    assert completed[0]["turn"]["outcome"] == "complete"


def test_session_continues_with_the_whole_history(home: Home) -> None:
    protocol = "gemini"
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(read_call()), final(protocol, "First answer."))
        first = home.run(server, "first question", approve="read-only")
        assert first.code == 0, first.stderr
        (path,) = home.sessions()
        before = home.records(path)
        server.script(final(protocol, "Second answer."))
        second = home.run(server, "second question", "--session", path.stem)
        server.assert_all_consumed()
        body = server.requests[2].body.decode("utf-8")
    assert second.code == 0, second.stderr
    assert second.stdout == "Second answer.\n"
    assert home.sessions() == [path], "the second run appends to the same file"
    for text in ("first question", "ship on friday", "First answer.", "second question"):
        assert text in body, f"{text!r} missing from the continued request"
    assert body.index("first question") < body.index("second question")
    after = home.records(path)
    assert after[: len(before)] == before
    assert types(after[len(before) :]) == ["user", "assistant"]
    assert after[-1]["text"] == "Second answer."
