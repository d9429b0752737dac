"""The headless loop always ends: a model that keeps asking for a call the approval mode denies
is stopped by max_auto_steps (only a person's decision resets the count), and the denial is the
policy's, never presented to the model as the user's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..fake_provider import FakeProvider, Reply
from ..run_helpers import KEY, Home, read_call, write_call

pytestmark = pytest.mark.heavy

MAX_STEPS = 3
EXTRA = 6  # more replies than the loop may use: a loop that never ends would take them all


@pytest.fixture
def home(tmp_path: Path) -> Home:
    made = Home(tmp_path)
    (made.workspace / "notes.txt").write_text("ship on friday\n", encoding="utf-8")
    made.settings(max_auto_steps=MAX_STEPS)
    return made


def _denied_call(approve: str, step: int) -> list[tuple[Any, ...]]:
    if approve == "never":
        return read_call(f"call_{step}")
    return write_call("out.txt", "hi", f"call_{step}")


@pytest.mark.parametrize(
    ("protocol", "approve"), [("openai-chat", "never"), ("anthropic", "read-only")]
)
def test_a_model_asking_for_a_denied_tool_forever_is_stopped(
    home: Home, protocol: str, approve: str
) -> None:
    stop = {"openai-chat": "tool_calls", "anthropic": "tool_use"}[protocol]
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(
            *(Reply(_denied_call(approve, i), stop=stop) for i in range(MAX_STEPS + EXTRA))
        )
        done = home.run(server, "do it", "--json", approve=approve)
        sent = len(server.requests)
        bodies = [r.body.decode("utf-8") for r in server.requests]
    assert done.code == 2, done.stderr
    assert sent == MAX_STEPS, f"the loop sent {sent} requests (max_auto_steps={MAX_STEPS})"
    events = done.events()
    ended = [e for e in events if e["type"] == "loop_ended"]
    assert [e["outcome"] for e in ended] == ["max_steps"]
    decided = [e for e in events if e["type"] == "call_decided"]
    assert len(decided) == MAX_STEPS
    assert {(e["decision"], e["by"]) for e in decided} == {("deny", "policy")}
    records = home.records()
    decisions = [r for r in records if r["type"] == "decision"]
    assert {(r["decision"], r["by"]) for r in decisions} == {("deny", "policy")}
    results = [r for r in records if r["type"] == "tool_result"]
    assert len(results) == MAX_STEPS and all(r["status"] == "denied" for r in results)
    # The model is told the approval mode denied it, never that a person did.
    for result in results:
        assert "by user" not in result["output"] and "approval mode" in result["output"]
    for body in bodies[1:]:
        assert "denied by user" not in body and "denied by the approval mode" in body
    assert "tool_start" not in {r["type"] for r in records}
