"""Claude Code inside tui-agent over ACP, through Zed's adapter `@zed-industries/claude-code-acp`
(npm, pinned in tests/acp_agents/package.json, installed there by .ci/run), against the project's
loopback fake provider speaking the Anthropic wire format: Claude Code honours
ANTHROPIC_BASE_URL. The fake's script makes the model call Claude's Write tool (the adapter's
``mcp__acp__Write``, which writes through the client's ``fs/write_text_file``), so the call
needs permission: approved it writes (and a rewind undoes it), denied it writes nothing, and a
cancel mid-stream keeps no assistant turn.

Claude Code's own side requests (token counts, small non-streamed haiku questions) are answered
aside (``FakeProvider.aside``), so the script holds only the conversation's turns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.events import LoopEnded

from .acp_npm_helpers import SLOW_WORDS, NpmAgent, assert_esc_cancels
from .fake_provider import Drip, FakeProvider, Reply
from .run_helpers import Home
from .test_acp_client import _Answers, _Writer

KEY = "sk-ant-api03-FAKEFAKEFAKE0123456789"


def _aside(request: Any) -> tuple[int, Any] | None:
    """Claude Code's questions beside the conversation: token counts, non-streamed asks."""
    body = request.json or {}
    if request.path.endswith("/count_tokens"):
        return 200, {"input_tokens": 12}
    if not body.get("stream"):
        message = {
            "id": "msg_aside",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        return 200, message
    return None


def _write_call(path: Path, content: str) -> Reply:
    arguments = json.dumps({"file_path": str(path), "content": content})
    ops = [
        ("text", "I will write the file."),
        ("call", 0, "toolu_W1", "mcp__acp__Write"),
        ("args", 0, arguments),
        ("close", 0),
    ]
    return Reply(ops, stop="tool_use")


def _claude_env(root: Path, server: FakeProvider) -> dict[str, str]:
    return {
        "HOME": str(root),
        "ANTHROPIC_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": KEY,
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        # As root with IS_SANDBOX set, the adapter offers a bypass mode that Claude Code then
        # refuses to start with ("cannot be used with root"): empty is unset for it.
        "IS_SANDBOX": "",
    }


CLAUDE = NpmAgent(
    "claude", "claude-code-acp", "claude-code-acp", "anthropic", KEY, _aside, _claude_env
)
ADAPTER = CLAUDE.path
pytestmark = CLAUDE.skip_unless_installed()


def test_claude_codes_write_approved_lands_and_a_rewind_undoes_it(home: Home) -> None:
    target = home.workspace / "hello.txt"
    with CLAUDE.server() as server:
        server.script(_write_call(target, "hi from claude\n"), Reply([("text", "Written.")]))
        CLAUDE.configure(home, server)
        done = CLAUDE.run(home, "write hello.txt", "all")
        assert done.code == 0, done.stderr
        server.assert_all_consumed()
    assert target.read_text() == "hi from claude\n"
    events = done.events()
    (decided,) = [e for e in events if e["type"] == "call_decided"]
    assert decided["decision"] == "approve"
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "done" and "+hi from claude" in finished["output"]
    assert "Written." in "".join(e["text"] for e in events if e["type"] == "text")
    session = home.records()[0]["id"]
    rewound = home.run_argv(
        [sys.executable, "-m", "tui_agent.cli", "rewind", session, "--to", "1", "--files-only"],
        key=None,
    )
    assert rewound.code == 0, rewound.stderr
    assert not target.exists()


def test_claude_codes_write_denied_writes_nothing(home: Home) -> None:
    target = home.workspace / "no.txt"
    with CLAUDE.server() as server:
        server.script(_write_call(target, "nope\n"), Reply([("text", "Understood.")]))
        CLAUDE.configure(home, server)
        done = CLAUDE.run(home, "write no.txt", "never")
        assert done.code == 0, done.stderr
    assert not target.exists()
    events = done.events()
    (decided,) = [e for e in events if e["type"] == "call_decided"]
    assert decided["decision"] == "deny"
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "denied"


async def test_claude_code_asks_tui_agents_approver_and_y_writes(tmp_path: Path) -> None:
    from tui_agent.approval.decision import approve

    target = tmp_path / "ws" / "asked.txt"
    writer, answers = _Writer(), _Answers(approve())
    with CLAUDE.server() as server:
        server.script(_write_call(target, "asked\n"), Reply([("text", "Done.")]))
        session = CLAUDE.session(tmp_path, server, answers, writer)
        await session.start()
        try:
            events = [event async for event in session.send("write asked.txt")]
        finally:
            await session.close()
    (request,) = answers.asked
    assert request.risk == "write" and "asked.txt" in request.tool_name
    assert target.read_text() == "asked\n"
    assert isinstance(events[-1], LoopEnded) and events[-1].outcome == "complete"
    kinds = [r.type for r in writer.records]
    assert kinds.index("checkpoint") < kinds.index("checkpoint_done")


async def test_esc_mid_stream_cancels_claude_code(tmp_path: Path) -> None:
    writer = _Writer()
    with CLAUDE.server() as server:
        server.script(Reply(SLOW_WORDS, stop="end_turn", faults=[Drip(40, 0.02)]))
        await assert_esc_cancels(CLAUDE.session(tmp_path, server, _Answers(), writer), writer)


def test_the_adapter_is_the_pinned_version() -> None:
    wanted = json.loads((ADAPTER.parents[2] / "package.json").read_text())["dependencies"]
    package = ADAPTER.parents[1] / "@zed-industries" / "claude-code-acp" / "package.json"
    installed = json.loads(package.read_text())["version"]
    assert installed == wanted["@zed-industries/claude-code-acp"]
    assert os.access(ADAPTER, os.X_OK)
    assert subprocess.run(["node", "--version"], capture_output=True, check=False).returncode == 0


async def test_claude_codes_permission_request_on_the_apps_armed_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .ui_app_helpers import make_env

    env = make_env(tmp_path, monkeypatch)
    target = env.workspace / "app.txt"
    with CLAUDE.server() as server:
        server.script(_write_call(target, "through the app\n"), Reply([("text", "All done.")]))
        await CLAUDE.approve_on_the_app(tmp_path, server, env.workspace, "write app.txt", "app.txt")
    assert target.read_text() == "through the app\n"


def test_claude_codes_bash_runs_in_tui_agents_sandbox(home: Home) -> None:
    command = {"command": "echo from bash > bash.txt", "description": "make a file"}
    arguments = json.dumps({**command, "timeout": 30000})
    ops = [("call", 0, "toolu_B1", "mcp__acp__Bash"), ("args", 0, arguments), ("close", 0)]
    with CLAUDE.server() as server:
        server.script(Reply(ops, stop="tool_use"), Reply([("text", "Ran it.")]))
        CLAUDE.configure(home, server)
        done = CLAUDE.run(home, "make bash.txt", "all")
        assert done.code == 0, done.stderr
        server.assert_all_consumed()
    assert (home.workspace / "bash.txt").read_text() == "from bash\n"
    events = done.events()
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "done", finished
    kinds = [r["type"] for r in home.records()]
    assert kinds.count("checkpoint") == 1 and "checkpoint_done" in kinds


def test_resuming_a_claude_code_session_goes_on_whether_or_not_it_loads(home: Home) -> None:
    """The adapter offers session/load; here Claude Code's own transcript keeps no message of
    the first run (only a queue entry), so its load fails: the run goes on in a new session
    of the agent and says so, the saved conversation being tui-agent's record."""
    with CLAUDE.server() as server:
        server.script(Reply([("text", "First answer.")]), Reply([("text", "Second answer.")]))
        CLAUDE.configure(home, server)
        first = CLAUDE.run(home, "first question", "never")
        assert first.code == 0, first.stderr
        session = home.records()[0]["id"]
        again = CLAUDE.run(home, "second question", "never", "--session", session)
        assert again.code == 0, again.stderr
    notices = [e["text"] for e in again.events() if e["type"] == "notice"]
    said = [t for t in notices if "resumed its session" in t or "did not load" in t]
    assert said, notices
    assert "Second answer." in "".join(e["text"] for e in again.events() if e["type"] == "text")
    users = [r["text"] for r in home.records() if r["type"] == "user"]
    assert users == ["first question", "second question"]
