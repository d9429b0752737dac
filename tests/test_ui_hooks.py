"""Hooks in the real app under Pilot: the card shows which ran and their verdict, /hooks lists
them with their source, and a blocked call is never offered for approval."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .approval_prompt_app import screen_text
from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .hook_helpers import BLOCKING, FORMATTER, script
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    armed_prompt,
    call_ops,
    cards,
    running,
    send,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"


def _configure(env: AppEnv, *hooks: dict[str, object]) -> None:
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for hook in hooks:
        lines.append("[[hooks]]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in hook.items()]
    (folder / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _hook(path: Path, event: str, name: str, **extra: object) -> dict[str, object]:
    return {"event": event, "command": [sys.executable, str(path)], "name": name, **extra}


async def test_the_card_shows_the_hooks_and_a_blocked_call_is_never_asked(env: AppEnv) -> None:
    guard = _hook(script(env.root, "guard.py", BLOCKING), "PreToolUse", "guard")
    _configure(env, guard)
    call = ("call_W", "write_file", {"path": "protected/a.txt", "content": "x\n"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(call)),
            answer(PROTOCOL, "Blocked.", expect=ExpectToolResults({"call_W": "blocked by hook"})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write it")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Blocked.")
            assert not app.query("ApprovalPrompt")
            [card] = cards(app)
            assert card.state == "denied"
            assert card.model.hooks[0].startswith("hook guard (PreToolUse): block")
            assert "hook guard (PreToolUse): block" in screen_text(app)
            await send(pilot, "/hooks")
            await wait_text(pilot, "1 hook:")
            assert "from config.toml (yours)" in screen_text(app)
        server.assert_all_consumed()
    assert not (env.workspace / "protected").exists()
    assert "hook" in env.types()


@pytest.mark.heavy
async def test_a_formatter_hook_runs_after_an_approved_write(env: AppEnv) -> None:
    fmt = _hook(script(env.root, "fmt.py", FORMATTER), "PostToolUse", "fmt")
    _configure(env, fmt)
    call = ("call_W", "write_file", {"path": "m.py", "content": "x = 1   \n"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(call)),
            answer(PROTOCOL, "Done.", expect=ExpectToolResults({"call_W": "[hook fmt: formatted"})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "write it")
            await armed_prompt(pilot)
            await pilot.press("y")
            await wait_idle_agent(pilot)
            [card] = cards(app)
            assert card.model.hooks[0].startswith("hook fmt (PostToolUse): block")
        server.assert_all_consumed()
    assert (env.workspace / "m.py").read_text() == "x = 1\n"
