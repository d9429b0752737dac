"""A read of a path the tool will refuse (outside the workspace) is said on the approval prompt
before it is approved, as the file tools' diff already says it: the real app under Pilot
against the fake provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider, Reply
from .ui_app_helpers import KEY, answer, armed_prompt, call_ops, make_env, running, send

PROTOCOL = "openai-chat"


@pytest.mark.parametrize(
    ("tool", "path"),
    [("read_file", "../../../../.ssh/id_rsa"), ("list_dir", "/etc"), ("search_text", "..")],
)
async def test_a_path_outside_the_workspace_is_warned_on_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, path: str
) -> None:
    env = make_env(tmp_path, monkeypatch)
    arguments = {"path": path} if tool != "search_text" else {"pattern": "x", "path": path}
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Reply(call_ops(("call_R", tool, arguments))), answer(PROTOCOL, "ok"))
        async with running(server, env) as (app, pilot):
            await send(pilot, "look")
            await armed_prompt(pilot)
            shown = " ".join(screen_text(app).split())
            assert "this call will fail:" in shown and "is outside the workspace" in shown
            await pilot.press("n")


async def test_a_path_inside_gets_no_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path, monkeypatch)
    (env.workspace / "notes.md").write_text("hi\n")
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        call = ("call_R", "read_file", {"path": "notes.md"})
        server.script(Reply(call_ops(call)), answer(PROTOCOL, "ok"))
        async with running(server, env) as (app, pilot):
            await send(pilot, "look")
            await armed_prompt(pilot)
            assert "this call will fail" not in screen_text(app)
            await pilot.press("n")
