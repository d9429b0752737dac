"""Gemini CLI inside tui-agent over ACP (`gemini --experimental-acp`, npm `@google/gemini-cli`,
pinned in tests/acp_agents/package.json, installed there by .ci/run), against the project's
loopback fake provider speaking the Gemini wire format: Gemini CLI takes its base URL from
GOOGLE_GEMINI_BASE_URL. The fake's script makes the model call Gemini's write_file on a file of
the workspace; Gemini reads it through ``fs/read_text_file``, asks permission, and writes through
``fs/write_text_file``: approved it lands (and a rewind undoes it), denied it writes nothing, and a
cancel mid-stream keeps no assistant turn.

Gemini CLI's side questions (the non-streamed generateContent of its model router and its
next-speaker check, both asking for JSON) are answered aside. (A write to a file that does not
exist yet fails in this Gemini CLI whatever the client answers: it reads the file first and
cannot tell the protocol's "Resource not found" error from any other, a JSON-RPC error reaching
it as a plain object; so the tests write over a file that exists.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .acp_npm_helpers import SLOW_WORDS, NpmAgent, assert_esc_cancels
from .fake_provider import Drip, FakeProvider, Reply
from .run_helpers import Home
from .test_acp_client import _Answers, _Writer

KEY = "AIzaFAKEFAKEFAKE0123456789abcdef"
# What Gemini CLI's JSON side questions accept: its router's and its next-speaker check's.
_SIDE_ANSWER = {"reasoning": "simple", "model_choice": "flash", "next_speaker": "user"}


def _aside(request: Any) -> tuple[int, Any] | None:
    if not request.path.endswith(":generateContent"):
        return None
    answer = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": json.dumps(_SIDE_ANSWER)}]},
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    }
    return 200, answer


def _write_call(path: Path, content: str) -> Reply:
    arguments = json.dumps({"file_path": str(path), "content": content})
    ops = [("text", "Writing."), ("call", 0, "c1", "write_file"), ("args", 0, arguments)]
    return Reply([*ops, ("close", 0)])


def _gemini_env(root: Path, server: FakeProvider) -> dict[str, str]:
    return {"HOME": str(root), "GOOGLE_GEMINI_BASE_URL": server.base_url, "GEMINI_API_KEY": KEY}


GEMINI = NpmAgent(
    "gemini", "gemini", "Gemini CLI", "gemini", KEY, _aside, _gemini_env, ("--experimental-acp",)
)
pytestmark = GEMINI.skip_unless_installed()


def test_gemini_clis_write_approved_lands_and_a_rewind_undoes_it(home: Home) -> None:
    target = home.workspace / "g.txt"
    target.write_text("old\n")
    with GEMINI.server() as server:
        server.script(_write_call(target, "from gemini\n"), Reply([("text", "Written.")]))
        GEMINI.configure(home, server)
        done = GEMINI.run(home, "change g.txt", "all")
        assert done.code == 0, done.stderr
    assert target.read_text() == "from gemini\n"
    events = done.events()
    (decided,) = [e for e in events if e["type"] == "call_decided"]
    assert decided["decision"] == "approve"
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "done" and "+from gemini" in finished["output"]
    session = home.records()[0]["id"]
    rewound = home.run_argv(
        [sys.executable, "-m", "tui_agent.cli", "rewind", session, "--to", "1", "--files-only"],
        key=None,
    )
    assert rewound.code == 0, rewound.stderr
    assert target.read_text() == "old\n"


def test_gemini_clis_write_denied_writes_nothing(home: Home) -> None:
    target = home.workspace / "g.txt"
    target.write_text("old\n")
    with GEMINI.server() as server:
        server.script(_write_call(target, "no\n"), Reply([("text", "Understood.")]))
        GEMINI.configure(home, server)
        done = GEMINI.run(home, "change g.txt", "never")
        assert done.code == 0, done.stderr
    assert target.read_text() == "old\n"
    events = done.events()
    (decided,) = [e for e in events if e["type"] == "call_decided"]
    assert decided["decision"] == "deny"
    (finished,) = [e for e in events if e["type"] == "tool_finished"]
    assert finished["status"] == "denied"


async def test_esc_mid_stream_cancels_gemini_cli(tmp_path: Path) -> None:
    writer = _Writer()
    with GEMINI.server() as server:
        server.script(Reply(SLOW_WORDS, faults=[Drip(40, 0.02)]))
        await assert_esc_cancels(GEMINI.session(tmp_path, server, _Answers(), writer), writer)


async def test_gemini_clis_permission_request_on_the_apps_armed_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .ui_app_helpers import make_env

    env = make_env(tmp_path, monkeypatch)
    target = env.workspace / "g.txt"
    target.write_text("old\n")
    with GEMINI.server() as server:
        server.script(_write_call(target, "via the app\n"), Reply([("text", "All done.")]))
        await GEMINI.approve_on_the_app(tmp_path, server, env.workspace, "change g.txt", "g.txt")
    assert target.read_text() == "via the app\n"
