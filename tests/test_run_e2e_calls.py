"""`tui-agent run` as a subprocess: calls that must never run (invalid or too large to show)
are answered with an error the model receives, and the loop goes on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fake_provider import BigArguments, ExpectToolResults, FakeProvider, Reply
from .run_helpers import KEY, Home, final, types

pytestmark = pytest.mark.heavy

NOTES = "the notes say: ship on friday\n"
BIG = 10_000_000


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    (made.workspace / "notes.txt").write_text(NOTES, encoding="utf-8")
    return made


def _call(index: int, call_id: str, name: str, arguments: str) -> list[tuple[Any, ...]]:
    return [("call", index, call_id, name), ("args", index, arguments), ("close", index)]


def _results(home: Home) -> dict[str, dict[str, Any]]:
    return {r["call_id"]: r for r in home.records() if r["type"] == "tool_result"}


def test_invalid_calls_never_run_and_the_model_gets_the_error(home: Home) -> None:
    ops = [
        *_call(0, "call_num", "read_file", '{"path": 5}'),
        *_call(1, "call_broken", "read_file", '{"path": "notes.txt"'),
        *_call(2, "call_unknown", "delete_everything", "{}"),
        *_call(3, "call_ok", "read_file", '{"path": "notes.txt"}'),
    ]
    expect = ExpectToolResults(
        {
            "call_num": "invalid arguments for read_file",
            "call_broken": "invalid arguments for read_file",
            "call_unknown": "unknown tool 'delete_everything'",
            "call_ok": "ship on friday",
        }
    )
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(ops, stop="tool_calls"), final(server.protocol, "Done.", expect))
        done = home.run(server, "look", "--json", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    events = done.events()
    invalid = [e["call_id"] for e in events if e["type"] == "call_invalid"]
    assert invalid == ["call_num", "call_broken", "call_unknown"]
    assert [e["call_id"] for e in events if e["type"] == "tool_started"] == ["call_ok"]
    results = _results(home)
    assert {k: r["status"] for k, r in results.items()} == {
        "call_num": "invalid",
        "call_broken": "invalid",
        "call_unknown": "invalid",
        "call_ok": "done",
    }
    starts = [r["call_id"] for r in home.records() if r["type"] == "tool_start"]
    assert starts == ["call_ok"]


def test_an_invalid_write_never_runs_even_with_approve_all(home: Home) -> None:
    arguments = json.dumps({"path": "x.txt", "content": "hi", "mode": "append"})
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(_call(0, "toolu_W", "write_file", arguments)),
            final(server.protocol, "Ok.", ExpectToolResults({"toolu_W": "mode"})),
        )
        done = home.run(server, "write", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert "[write_file] invalid:" in done.stderr
    assert not (home.workspace / "x.txt").exists()
    assert "tool_start" not in types(home.records())


def test_ten_megabyte_arguments_are_refused_without_running(home: Home) -> None:
    protocol = "gemini"
    content = "x" * (BIG - 40)
    arguments = json.dumps({"path": "big.txt", "content": content}, separators=(",", ":"))
    ops = [("call", 0, "call_big", "write_file")]
    ops += [("args", 0, arguments[i : i + (1 << 20)]) for i in range(0, len(arguments), 1 << 20)]
    ops.append(("close", 0))
    expect = ExpectToolResults({"call_big": "too large to show"})
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(ops), final(protocol, "Understood.", expect))
        done = home.run(server, "write a big file", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert done.stdout == "Understood.\n"
    assert not (home.workspace / "big.txt").exists()
    records = home.records()
    assert types(records) == [
        "header",
        "user",
        "assistant",
        "decision",
        "tool_result",
        "assistant",
    ]
    assert len(records[2]["tool_calls"][0]["arguments"]) == len(arguments)
    assert records[3]["decision"] == "refused"
    assert records[4]["status"] == "denied"
    assert f"arguments of {len(arguments)} bytes" in records[4]["output"]


def test_huge_invalid_arguments_get_a_short_error(home: Home) -> None:
    # BigArguments has no "path": the call is invalid before its size matters.
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(
            Reply(BigArguments(300_000, call_id="toolu_big")),
            final(server.protocol, "Noted.", ExpectToolResults({"toolu_big": "path"})),
        )
        done = home.run(server, "write", "--json", approve="all")
        server.assert_all_consumed()
        second = server.requests[1].json
    assert done.code == 0, done.stderr
    result = second["messages"][-1]["content"][0]
    assert result["is_error"] is True
    assert len(json.dumps(result)) < 5_000, "the error must not echo the arguments"
    assert not any(e["type"] == "tool_started" for e in done.events())
