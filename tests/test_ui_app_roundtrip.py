"""Chat, quit, resume, continue: the real app against the fake provider, in each protocol.

A session is made in the app (a read_file call approved with `y`, then an answer), the app is
quit with Ctrl+Q, and a new app resumes it (``-r ID``, ``-c``): the transcript shows the earlier
conversation, and the next request carries it to the provider in the protocol's own shape.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tui_agent.session import SessionStore
from tui_agent.session.records import UserRecord
from tui_agent.ui.app import TuiAgentApp
from tui_agent.wiring.host_options import HostOptions

from .agent_helpers import PROTOCOLS, sent_results
from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .support.clock import LeapClock
from .ui_app_helpers import (
    KEY,
    KEY_ENV,
    SIZE,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    make_env,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

SECRET = "zebra-42 lives here"
FIRST = "please read alpha.txt"
ANSWER = "It says zebra."
SECOND = "and what next?"
_CALL_TYPE = {"anthropic": "tool_use", "gemini-interactions": "function_call"}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    made = make_env(tmp_path, monkeypatch)
    (made.workspace / "alpha.txt").write_text(SECRET + "\n", encoding="utf-8")
    return made


@contextlib.asynccontextmanager
async def opened(
    server: FakeProvider, env: AppEnv, **options: Any
) -> AsyncIterator[tuple[TuiAgentApp, Pilot[None]]]:
    """The app on ``server`` with these HostOptions; left with Ctrl+Q, as a user leaves."""
    host = HostOptions(
        protocol=server.protocol,
        model="m",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        workspace=str(env.workspace),
        **options,
    )
    app = TuiAgentApp(host, clock=LeapClock())  # armed_prompt leaps through the arming
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        yield app, pilot
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, "the app to quit")


async def chat(server: FakeProvider, env: AppEnv, first: str = FIRST) -> None:
    """One conversation: a read_file call approved with `y`, its result, then an answer."""
    server.script(
        Reply(call_ops(("call_A", "read_file", {"path": "alpha.txt"}), text="Reading.")),
        answer(server.protocol, ANSWER, expect=ExpectToolResults({"call_A": "zebra-42"})),
    )
    async with opened(server, env) as (_app, pilot):
        await send(pilot, first)
        await armed_prompt(pilot)
        await pilot.press("y")
        await wait_idle_agent(pilot)
        await wait_text(pilot, ANSWER)


def sent_calls(protocol: str, body: Any) -> dict[str, str]:
    """Every assistant tool call in a request body, {call id: tool name}."""
    out: dict[str, str] = {}
    for node in _nodes(body):
        if protocol == "openai-chat" and node.get("role") == "assistant":
            for call in node.get("tool_calls") or []:
                out[call["id"]] = call["function"]["name"]
        elif protocol == "openai-responses" and node.get("type") == "function_call":
            out[node["call_id"]] = node["name"]
        elif protocol in _CALL_TYPE and node.get("type") == _CALL_TYPE[protocol]:
            out[node["id"]] = node["name"]
        elif protocol == "gemini" and isinstance(node.get("functionCall"), dict):
            call = node["functionCall"]
            out[call.get("id") or call["name"]] = call["name"]
    return out


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def main_types(env: AppEnv) -> list[str]:
    kept = {"user", "assistant", "decision", "tool_start", "tool_result"}
    return [kind for kind in env.types() if kind in kept]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_chat_quit_resume_carries_the_conversation(protocol: str, env: AppEnv) -> None:
    with FakeProvider(protocol, api_key=KEY) as server:
        await chat(server, env)
        (path,) = env.sessions()
        session_id = path.stem
        before = path.read_text("utf-8").splitlines()
        assert main_types(env) == [
            "user",
            "assistant",
            "decision",
            "tool_start",
            "tool_result",
            "assistant",
        ]

        server.script(answer(protocol, "Next comes more."))
        async with opened(server, env, resume=session_id) as (app, pilot):
            await wait_text(pilot, ANSWER)
            shown = screen_text(app)
            assert FIRST in shown and "read_file" in shown
            await send(pilot, SECOND)
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Next comes more.")
        server.assert_all_consumed()

        body = server.requests[-1].json
        text = json.dumps(body, ensure_ascii=False)
        assert sent_calls(protocol, body) == {"call_A": "read_file"}
        results = sent_results(protocol, body)
        assert list(results) == ["call_A"] and "zebra-42" in results["call_A"]
        order = [text.find(FIRST), text.find("call_A"), text.find("zebra-42"), text.find(SECOND)]
        assert -1 not in order and order == sorted(order)

    assert env.sessions() == [path]  # resumed in place, no new session
    after = path.read_text("utf-8").splitlines()
    assert after[: len(before)] == before  # appended only
    assert main_types(env) == [
        "user",
        "assistant",
        "decision",
        "tool_start",
        "tool_result",
        "assistant",
        "user",
        "assistant",
    ]
    users = [r["text"] for r in env.records() if r["type"] == "user"]
    assert users == [FIRST, SECOND]


async def test_continue_picks_the_latest_session_of_this_workspace(env: AppEnv) -> None:
    protocol = "openai-chat"
    with FakeProvider(protocol, api_key=KEY) as server:
        await chat(server, env, "the older one")
        await chat(server, env, "the newer one")
        newer = next(p for p in env.sessions() if "the newer one" in p.read_text("utf-8"))
        older = next(p for p in env.sessions() if p != newer)
        stamp = newer.stat().st_mtime - 3600  # "updated" is the file's time: make it plain
        os.utime(older, (stamp, stamp))
        # A session of another workspace, saved later still, is not this workspace's.
        other = SessionStore().create(profile="p", protocol=protocol, model="m", workspace="/x")
        other.append(UserRecord(ts=0.0, text="elsewhere"))
        other.close()

        server.script(answer(protocol, "Continued."))
        async with opened(server, env, continue_last=True) as (app, pilot):
            await wait_text(pilot, "the newer one")
            shown = screen_text(app)
            assert "the older one" not in shown and "elsewhere" not in shown
            await send(pilot, SECOND)
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Continued.")
        server.assert_all_consumed()
        text = json.dumps(server.requests[-1].json, ensure_ascii=False)
        assert "the newer one" in text and "the older one" not in text

    assert len(env.sessions()) == 3
    assert SECOND in newer.read_text("utf-8")
