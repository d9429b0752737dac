"""A turn whose usage shows the request's output budget spent was cut by it, whatever status the
server sent: llama.cpp's Responses endpoint says ``completed`` for a response cut by
``max_output_tokens`` (tests/fixtures/llamacpp/SOURCES.md). The rule is the same for every
protocol: the turn is truncated (``length``), nothing of it runs and it is not saved as a turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_agent.stream.turn import TruncatedTurn, Turn
from tui_agent.turn_reader import assemble

from .fake_provider import FakeProvider, Reply
from .run_helpers import KEY, Home, types

LLAMACPP = Path(__file__).parent / "fixtures" / "llamacpp"

# (file, protocol, the output limit the request asked for, the call cut in it or None for text)
CASES = [
    ("responses-cut-call-status-completed.sse", "openai-responses", 24, "write_file"),
    ("responses-cut-text-status-completed.sse", "openai-responses", 8, None),
    ("chat-cut-finish-length.sse", "openai-chat", 8, None),
    ("chat-cut-call-finish-tool-calls.written.sse", "openai-chat", 24, "write_file"),
    ("messages-cut-max-tokens.sse", "anthropic", 8, None),
    ("messages-cut-call-stop-tool-use.written.sse", "anthropic", 24, "write_file"),
    ("gemini-cut-text-finish-stop.written.sse", "gemini", 8, None),
    ("interactions-cut-call-requires-action.written.sse", "gemini-interactions", 24, "write_file"),
]


def _chunks(body: bytes) -> list[bytes]:
    return [body[i : i + 7] for i in range(0, len(body), 7)]


@pytest.mark.parametrize(("name", "protocol", "limit", "call"), CASES)
def test_a_turn_that_spent_the_output_budget_is_truncated(
    name: str, protocol: str, limit: int, call: str | None
) -> None:
    body = (LLAMACPP / name).read_bytes()
    result = assemble(protocol, _chunks(body), output_limit=limit)
    assert isinstance(result, TruncatedTurn), result
    assert result.reason == "length"
    assert [c.name for c in result.pending_calls] == ([call] if call else [])
    if call is None:
        assert result.text, "the text received so far is kept for the record"


@pytest.mark.parametrize(
    ("name", "protocol", "limit", "call"),
    [c for c in CASES if ".written." in c[0] or "status" in c[0]],
)
def test_below_the_budget_the_status_the_server_sent_decides(
    name: str, protocol: str, limit: int, call: str | None
) -> None:
    # The same body under a larger limit: the budget was not spent, so the turn is as reported
    # (these bodies report a normal end; their calls are then refused by validation, not here).
    body = (LLAMACPP / name).read_bytes()
    result = assemble(protocol, _chunks(body), output_limit=limit + 1)
    assert isinstance(result, Turn), result


def test_run_with_a_cut_call_reported_completed_runs_and_saves_nothing(home: Home) -> None:
    body = (LLAMACPP / "responses-cut-call-status-completed.sse").read_bytes()
    home.settings(max_tokens=24)
    with FakeProvider("openai-responses", api_key=KEY) as server:
        server.script(Reply(body))
        done = home.run(server, "create release.txt", approve="all")
        server.assert_all_consumed()
        assert len(server.requests) == 1
    assert done.code == 2, done.stderr
    assert "Turn discarded" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (home.workspace / "release.txt").exists()
    records = home.records()
    assert types(records) == ["header", "user", "truncated"], types(records)
    assert records[-1]["reason"] == "length"
    assert [c["name"] for c in records[-1]["pending_calls"]] == ["write_file"]
