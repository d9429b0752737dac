"""`tui-agent run` with a small window, as a subprocess against the fake provider: the context
and compacted events, compacting once and sending again after an overflow (exit 2 when it still
does not fit), and the compacted session's replay, export and forks."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.history import messages_from_records
from tui_agent.context.resume import resumed_context
from tui_agent.session import SessionStore

from .context_helpers import (
    LLAMA_CPP_OVERFLOW,
    OVERFLOW_BODIES,
    offered_tools,
    overflow_status,
    request_text,
    text_reply,
)
from .fake_provider import FakeProvider
from .run_helpers import KEY, Done, Home

pytestmark = pytest.mark.heavy

SUMMARY = "SUMMARY: we talked about the release; it ships on friday."
FIRST_ANSWER = "The release ships on friday. " * 160  # ~4.6 KB: more than a quarter window


@pytest.fixture
def home(tmp_path: Path) -> Home:
    home = Home(tmp_path)
    home.settings(context_window=4000, compact_at=0.85, max_retries=0)
    return home


def _session_id(done: Done) -> str:
    assert done.session_line is not None
    line = json.loads(done.session_line)
    return str(line["session_id"])


def _cli(home: Home, *args: str) -> Done:
    return home.run_argv([sys.executable, "-m", "tui_agent.cli", *args])


def _of(done: Done, kind: str) -> list[dict[str, Any]]:
    return [e for e in done.events() if e["type"] == kind]


def test_threshold_compaction_in_run_and_the_saved_session(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY, require_tools=False) as server:
        server.script(
            text_reply("anthropic", FIRST_ANSWER, 3500),
            text_reply("anthropic", SUMMARY, 200),
            text_reply("anthropic", "Friday.", 1500),
        )
        first = home.run(server, "when does the release ship?", "--json")
        assert first.code == 0, first.stderr
        assert _of(first, "context") == [{"type": "context", "used": 3500, "window": 4000}]
        session = _session_id(first)
        second = home.run(server, "remind me?", "--json", "--session", session)
        server.assert_all_consumed()
        summary_request, following = server.requests[1].json, server.requests[2].json
    assert second.code == 0, second.stderr
    (compacted,) = _of(second, "compacted")
    assert compacted["tokens_before"] > 3400 > compacted["tokens_after"]
    assert compacted["reason"] == "auto" and compacted["summary"] == SUMMARY
    kinds = [e["type"] for e in second.events()]
    assert kinds.index("compaction_started") < kinds.index("compacted")
    assert kinds.index("compacted") < kinds.index("turn_started")
    assert _of(second, "context")[-1] == {"type": "context", "used": 1500, "window": 4000}
    assert not offered_tools("anthropic", summary_request)
    assert "when does the release ship?" in request_text(summary_request)
    sent = request_text(following)
    assert SUMMARY in sent and "remind me?" in sent and "The release ships" not in sent

    # Replay and export show everything, with the divider and the summary.
    replay = _cli(home, "replay", session, "--headless")
    assert replay.code == 0, replay.stderr
    lines = replay.stdout.splitlines()
    divider = next(i for i, line in enumerate(lines) if "compacted here" in line)
    assert any(line.startswith("assistant: The release ships") for line in lines[:divider])
    assert any(SUMMARY in line for line in lines[divider:])
    # Compacted when the question was asked, before it was sent: the question is kept.
    assert lines[divider - 1] == "user: remind me?" and "the last 1 sent as" in lines[divider]
    assert any(line.startswith("assistant: Friday.") for line in lines[divider:])
    export = _cli(home, "export", session)
    assert export.code == 0, export.stderr
    assert "**Compacted here:**" in export.stdout and SUMMARY in export.stdout
    assert export.stdout.index("The release ships") < export.stdout.index("Compacted here")

    # A fork before the divider has the whole conversation back; one after it, the summary.
    store = SessionStore(home.data / "tui-agent" / "sessions")
    for at, summary in ((2, None), (3, SUMMARY)):
        fork = _cli(home, "sessions", "fork", session, "--at", str(at))
        assert fork.code == 0, fork.stderr
        records = store.load(fork.stdout.strip().split()[-1]).records
        messages, _ = messages_from_records(records)
        resumed = resumed_context(records, messages)
        assert resumed.summary == summary
        assert len(messages[resumed.replaced :]) == (2 if summary is None else 1)


@pytest.mark.parametrize(
    ("protocol", "body"),
    [("openai-chat", LLAMA_CPP_OVERFLOW), ("gemini", OVERFLOW_BODIES["gemini"])],
)
def test_run_compacts_once_after_an_overflow(home: Home, protocol: str, body: Any) -> None:
    with FakeProvider(protocol, api_key=KEY, require_tools=False) as server:
        server.script(
            text_reply(protocol, FIRST_ANSWER, 1000),
            overflow_status(body),
            text_reply(protocol, SUMMARY, 200),
            text_reply(protocol, "Friday.", 900),
        )
        first = home.run(server, "when does the release ship?", "--json")
        second = home.run(server, "again?", "--json", "--session", _session_id(first))
        server.assert_all_consumed()
        retried = server.requests[3].json
    assert second.code == 0, second.stderr
    kinds = [e["type"] for e in second.events()]
    assert kinds.count("turn_started") == 2
    assert (
        kinds.index("turn_truncated") < kinds.index("context_overflow") < kinds.index("compacted")
    )
    assert SUMMARY in request_text(retried) and "again?" in request_text(retried)


def test_run_exits_2_when_it_still_does_not_fit(home: Home) -> None:
    protocol = "openai-chat"
    with FakeProvider(protocol, api_key=KEY, require_tools=False) as server:
        server.script(
            text_reply(protocol, FIRST_ANSWER, 1000),
            overflow_status(OVERFLOW_BODIES[protocol]),
            text_reply(protocol, SUMMARY, 200),
            overflow_status(OVERFLOW_BODIES[protocol]),
        )
        first = home.run(server, "when does the release ship?")
        second = home.run(server, "again?", "--session", first.session_line.split()[1])
        server.assert_all_consumed()
    assert second.code == 2
    assert second.stderr.count("no longer fits in the model's context window") == 2
    assert "compacted (overflow)" in second.stderr
