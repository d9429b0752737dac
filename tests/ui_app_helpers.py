"""The real TuiAgentApp, driven by Pilot against the fake provider over real sockets.

``make_env`` isolates the user's folders (config, data, state) and sets the key variable;
``running(server, env)`` opens the app at 120x40, waits (bounded) for the boot worker, and on
the way out quits with Ctrl+Q as a user would. The ``wait_*`` helpers poll with a deadline;
they never time anything.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.prompt_input import PromptInput
from tui_agent.ui.widgets.tool_card import ToolCallCard
from tui_agent.wiring.host_options import HostOptions

from . import wire
from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply
from .support.clock import LeapClock, leap_until
from .support.waiting import WAIT_S, wait_for
from .wire import Op

SIZE = (120, 40)
KEY_ENV = "FAKE_KEY"
KEY = "fake-key-value"
TEXT_STOP = {"openai-chat": "stop", "anthropic": "end_turn"}


@dataclass
class AppEnv:
    root: Path
    workspace: Path
    data: Path

    def sessions(self) -> list[Path]:
        return sorted((self.data / "tui-agent" / "sessions").glob("*.jsonl"))

    def records(self) -> list[dict[str, Any]]:
        """Every record of the one session file (header first)."""
        (path,) = self.sessions()
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def types(self) -> list[str]:
        return [record["type"] for record in self.records()]


def make_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    """Isolated user folders and the key variable (each test module makes it a fixture)."""
    for name in ("config", "data", "state"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv(KEY_ENV, KEY)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return AppEnv(tmp_path, workspace, tmp_path / "data")


def make_app(server: FakeProvider, env: AppEnv, **kwargs: Any) -> TuiAgentApp:
    """The app against ``server``, on a LeapClock unless the test gives it a clock of its own."""
    options = HostOptions(
        protocol=server.protocol,
        model="m",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        workspace=str(env.workspace),
    )
    kwargs.setdefault("clock", LeapClock())
    return TuiAgentApp(options, **kwargs)


@contextlib.asynccontextmanager
async def running(
    server: FakeProvider, env: AppEnv, **kwargs: Any
) -> AsyncIterator[tuple[TuiAgentApp, Pilot[None]]]:
    app = make_app(server, env, **kwargs)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.host is not None, "the boot worker")
        yield app, pilot
        if app.is_running:
            await pilot.press("ctrl+q")


async def wait_text(pilot: Pilot[None], text: str, timeout: float = WAIT_S) -> None:
    await wait_for(pilot, lambda: text in screen_text(pilot.app), repr(text), timeout)


async def send(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` into the message box (as one paste) and press Enter."""
    prompt = pilot.app.query_one(PromptInput)
    prompt.focus()
    prompt.insert(text)
    await pilot.press("enter")


async def wait_prompt(pilot: Pilot[None]) -> ApprovalPrompt:
    """The approval prompt once it is mounted (not yet armed)."""
    app = pilot.app
    await wait_for(pilot, lambda: app.query(ApprovalPrompt), "the approval prompt")
    return app.query_one(ApprovalPrompt)


async def armed_prompt(pilot: Pilot[None]) -> ApprovalPrompt:
    prompt = await wait_prompt(pilot)
    await leap_until(pilot, lambda: prompt.armed, "the prompt to arm")
    return prompt


async def wait_idle_agent(pilot: Pilot[None]) -> None:
    """The agent's loop ended and the app waits for the user."""
    app = pilot.app
    assert isinstance(app, TuiAgentApp)
    await wait_for(pilot, lambda: not app.busy, "the agent loop to end")


def cards(app: TuiAgentApp) -> list[ToolCallCard]:
    return list(app.query(ToolCallCard))


def prompt_text(app: TuiAgentApp) -> str:
    return app.query_one(PromptInput).text


def answer(protocol: str, text: str = "Done.", **kwargs: Any) -> Reply:
    if protocol in TEXT_STOP:
        kwargs.setdefault("stop", TEXT_STOP[protocol])
    return Reply([("text", text)], **kwargs)


def call_ops(*calls: tuple[str, str, dict[str, Any]], text: str = "") -> list[Op]:
    """Ops announcing ``calls`` (id, tool, arguments) in order, each in two fragments."""
    ops: list[Op] = [("text", text)] if text else []
    for index, (call_id, name, arguments) in enumerate(calls):
        body = json.dumps(arguments)
        half = len(body) // 2
        ops += [
            ("call", index, call_id, name),
            ("args", index, body[:half]),
            ("args", index, body[half:]),
            ("close", index),
        ]
    return ops


def offset_of(protocol: str, ops: list[Op], needle: str) -> int:
    """Where ``needle`` starts in the body the fake provider renders for ``ops``."""
    body = wire.BUILDERS[protocol](ops)
    at = body.find(needle.encode())
    assert at > 0, needle
    return at


def sent_texts(server: FakeProvider, index: int) -> str:
    """Request ``index`` as JSON text (to count what it carries)."""
    return json.dumps(server.requests[index].json, ensure_ascii=False)
