"""`tui-agent run` with a task: --json prints the subagent's events tagged with the task call's
id (its text deltas left out, its turn printed whole), text mode prints its lines labelled, and
the session file keeps its records under the task call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fake_provider import FakeProvider, Reply
from .run_helpers import KEY, Home, final

pytestmark = pytest.mark.heavy

TASK = json.dumps({"description": "notes", "prompt": "Read notes.txt", "agent": "explore"})


def _script(server: FakeProvider) -> None:
    server.script(
        Reply([("call", 0, "call_T", "task"), ("args", 0, TASK), ("close", 0)], stop="tool_calls"),
        Reply(
            [("call", 0, "sub_R", "read_file"), ("args", 0, '{"path": "notes.txt"}'), ("close", 0)],
            stop="tool_calls",
        ),
        final(server.protocol, "The notes say friday."),
        final(server.protocol, "Friday."),
    )


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    (made.workspace / "notes.txt").write_text("ship on friday\n", encoding="utf-8")
    return made


def test_json_tags_the_subagents_events_with_the_task_call(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        _script(server)
        done = home.run(server, "what do the notes say?", "--json", approve="read-only")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    events = done.events()
    nested: list[dict[str, Any]] = [e for e in events if e["type"] == "subagent"]
    assert nested and {e["call_id"] for e in nested} == {"call_T"}
    assert {e["agent"] for e in nested} == {"explore"}
    inner = [e["event"]["type"] for e in nested]
    assert "text" not in inner  # deltas left out: the turn comes whole
    assert inner.count("turn_completed") == 2 and inner[-1] == "loop_ended"
    finished = [e["event"] for e in nested if e["event"]["type"] == "tool_finished"]
    assert [(f["call_id"], f["status"]) for f in finished] == [("sub_R", "done")]
    task = next(e for e in events if e["type"] == "tool_finished" and e["call_id"] == "call_T")
    assert task["output"] == "The notes say friday."
    records = home.records()
    kinds = [r["record"]["type"] for r in records if r["type"] == "subagent"]
    assert kinds[0] == "user" and "tool_result" in kinds
    assert [r["call_id"] for r in records if r["type"] == "tool_result"] == ["call_T"]


def test_text_mode_labels_the_subagents_lines(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        _script(server)
        done = home.run(server, "what do the notes say?", approve="read-only")
    assert done.code == 0, done.stderr
    assert "[task explore] [read_file] approve" in done.stderr
    assert "[task explore] The notes say friday." in done.stderr
    assert done.stdout.strip() == "Friday."


def test_a_rewind_undoes_what_a_subagent_wrote(home: Home) -> None:
    import sys

    folder = home.config / "tui-agent" / "agents"
    folder.mkdir(parents=True)
    (folder / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes files.\ntools: Write\n---\nWrite what is asked.\n"
    )
    write = json.dumps({"description": "write", "prompt": "Write b.txt", "agent": "writer"})
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(
                [("call", 0, "call_W", "task"), ("args", 0, write), ("close", 0)], stop="tool_calls"
            ),
            Reply(
                [
                    ("call", 0, "sub_W", "write_file"),
                    ("args", 0, '{"path": "b.txt", "content": "B"}'),
                    ("close", 0),
                ],
                stop="tool_calls",
            ),
            final(server.protocol, "Wrote b.txt."),
            final(server.protocol, "Done."),
        )
        done = home.run(server, "write b", "--json", approve="all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert (home.workspace / "b.txt").read_text() == "B"
    (path,) = home.sessions()
    rewound = home.run_argv(
        [sys.executable, "-m", "tui_agent", "rewind", path.stem, "--to", "1", "--json"]
    )
    assert rewound.code == 0, rewound.stderr
    assert not (home.workspace / "b.txt").exists()
