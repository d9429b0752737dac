"""Skills in the real app under Pilot, over the loopback fake provider: a config skill is named
in the system prompt and its body reaches the model through load_skill, run without a question in
auto-read mode like any read-only tool; a workspace's skills are neither named nor loadable until
the workspace is trusted; /skills lists each with its source."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from tui_agent.ui.workspace_trust import WorkspaceTrustScreen

from .fake_provider import ExpectToolResults, FakeProvider, Reply
from .support.clock import leap_until
from .ui_app_helpers import (
    KEY,
    AppEnv,
    answer,
    call_ops,
    cards,
    make_env,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "openai-chat"
REVIEW = """---
name: code-review
description: Review a change, correctness first.
---
Read the diff, then say what is WRONG-FIRST.
"""
RELEASE = """---
name: release
description: Ship a RELEASE-BUILD to staging.
---
Run the STAGING-STEPS.
"""


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    return make_env(tmp_path, monkeypatch)


def _skill(root: Path, name: str, text: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(text, encoding="utf-8")
    (root / name / "notes.md").write_text("notes\n", encoding="utf-8")


def _config(env: AppEnv) -> Path:
    folder = env.root / "config" / "tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text('[approval]\nmode = "auto-read"\n', encoding="utf-8")
    return folder


async def _answer_trust(pilot: Pilot[None], key: str) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, WorkspaceTrustScreen), "the question")
    screen = app.screen
    assert isinstance(screen, WorkspaceTrustScreen)
    while not screen.read_all():
        await pilot.press("pagedown")
        await pilot.pause()
    await leap_until(pilot, screen.guard.armed, "the arming")
    await pilot.press(key)
    await wait_for(pilot, lambda: pilot.app.screen is not screen, key)


async def test_a_config_skill_is_offered_and_loaded_without_asking(env: AppEnv) -> None:
    _skill(_config(env) / "skills", "review", REVIEW)
    call = ("call_S", "load_skill", {"name": "code-review"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(call)),
            answer(PROTOCOL, "Loaded.", expect=ExpectToolResults({"call_S": "WRONG-FIRST"})),
        )
        async with running(server, env) as (app, pilot):
            await send(pilot, "review my change")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Loaded.")
            assert not app.query("ApprovalPrompt")
            [card] = cards(app)
            assert card.state == "done"
            await send(pilot, "/skills")
            await wait_text(pilot, "code-review (config folder)")
        server.assert_all_consumed()
    first = server.requests[0].body.decode()
    assert "code-review: Review a change, correctness first." in first
    assert "WRONG-FIRST" not in first and '"load_skill"' in first
    assert "- notes.md" in server.requests[1].body.decode()


@pytest.mark.heavy
async def test_workspace_skills_wait_for_trust(env: AppEnv) -> None:
    _config(env)
    _skill(env.workspace / ".tui-agent" / "skills", "release", RELEASE)
    load = ("call_R", "load_skill", {"name": "release"})
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(
            Reply(call_ops(load)),
            answer(PROTOCOL, "No.", expect=ExpectToolResults({"call_R": "no skill is named"})),
            answer(PROTOCOL, "Yes."),
        )
        async with running(server, env) as (_, pilot):
            await _answer_trust(pilot, "n")
            await send(pilot, "/skills")
            await wait_text(pilot, "not trusted, so not offered")
            await send(pilot, "ship it")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "No.")
            await send(pilot, "/trust-workspace")
            await _answer_trust(pilot, "t")
            await send(pilot, "again")
            await wait_idle_agent(pilot)
        server.assert_all_consumed()
    for request in server.requests[:2]:
        body = request.body.decode()
        assert "RELEASE-BUILD" not in body and "STAGING-STEPS" not in body
    assert "release: Ship a RELEASE-BUILD to staging." in server.requests[2].body.decode()
