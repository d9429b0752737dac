"""Both sides of ACP at once: `tui-agent run --agent self` (the client side, acp_client/) drives
`tui-agent acp` (the agent side) as a config.toml agent, the inner agent's model being the fake
provider. The inner agent's call that needs permission is asked of the outer client, which
answers as its --approve says: approved, it runs; denied, it does not, and the model is told."""

from __future__ import annotations

import json
import sys

import pytest

from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .run_helpers import KEY, KEY_ENV, MODEL, Done, Home, final, write_call

pytestmark = pytest.mark.heavy


def _run_through_self(home: Home, server: FakeProvider, approve: str) -> Done:
    inner = [sys.executable, "-m", "tui_agent.cli", "acp", "--protocol", server.protocol]
    inner += ["--model", MODEL, "--base-url", server.base_url, "--api-key-env", KEY_ENV]
    home.write_config(f"[agents.self]\ncommand = {json.dumps(inner)}\n")
    argv = [sys.executable, "-m", "tui_agent.cli", "run", "--agent", "self", "write the file"]
    return home.run_argv([*argv, "--approve", approve, "--json"])


def test_the_inner_agents_call_runs_once_the_outer_client_approves(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(write_call("made.txt", "from the inner agent\n"), stop="tool_calls"),
            final(server.protocol, "Inner done.", ExpectToolResults({"call_W": "made.txt"})),
        )
        done = _run_through_self(home, server, "all")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    assert (home.workspace / "made.txt").read_text("utf-8") == "from the inner agent\n"
    events = done.events()
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "done" and "made.txt" in finished["output"]
    assert "Inner done." in "".join(e.get("text", "") for e in events if e["type"] == "text")
    assert len(home.sessions()) == 2  # the outer client's and the inner agent's


def test_the_inner_agents_call_is_not_run_when_the_outer_client_denies(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply(write_call("made.txt", "never\n"), stop="tool_calls"),
            final(server.protocol, "Not written.", ExpectToolResults({"call_W": "denied"})),
        )
        done = _run_through_self(home, server, "never")
        server.assert_all_consumed()
    assert not (home.workspace / "made.txt").exists()
    decided = [e for e in done.events() if e["type"] == "call_decided"]
    assert [e["decision"] for e in decided] == ["deny"]
