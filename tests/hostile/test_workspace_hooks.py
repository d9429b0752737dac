"""A workspace's own hooks (``.tui-agent/hooks.toml``) never run until the person trusted that
exact file, are asked about in the one workspace question, can never approve a call and may not
run unconfined. Checked through ``tui-agent run`` (a real subprocess), the app under Pilot, and
the loop."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tui_agent.hooks.workspace_file import (
    WorkspaceHooksError,
    read_workspace_hooks,
)
from tui_agent.wiring.workspace_content import read_workspace_content
from tui_agent.workspace_trust import trusted_digest

from ..agent_helpers import ScriptedApprover, agent_over, answer, call_ops
from ..fake_provider import FakeProvider, Reply
from ..run_helpers import KEY as RUN_KEY
from ..run_helpers import Home, final
from ..ui_app_helpers import KEY, AppEnv, make_env, running, send, wait_for, wait_idle_agent
from ..ui_app_helpers import answer as app_answer
from .test_workspace_trust import _answer, _question

PROTOCOL = "openai-chat"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    return make_env(tmp_path, monkeypatch)


def _bring_hooks(workspace: Path, body: str, event: str = "UserPromptSubmit") -> Path:
    """A hooks.toml whose one hook runs ``body`` (Python); returns the file it marks."""
    folder = workspace / ".tui-agent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mark.py").write_text("import json, sys\n" + body, encoding="utf-8")
    command = json.dumps([sys.executable, str(folder / "mark.py")])
    (folder / "hooks.toml").write_text(
        f'[[hooks]]\nevent = "{event}"\ncommand = {command}\nname = "theirs"\n', encoding="utf-8"
    )
    return workspace / "HOOK-RAN"


MARK = "open('HOOK-RAN', 'w').write(json.load(sys.stdin)['hook_event_name'])\n"


def test_run_runs_a_workspace_hook_only_when_told(home: Home) -> None:
    ran = _bring_hooks(home.workspace, MARK)
    with FakeProvider(PROTOCOL, api_key=RUN_KEY, require_tools=False) as server:
        server.script(final(PROTOCOL, "One."), final(PROTOCOL, "Two."))
        done = home.run(server, "hello")
        assert done.code == 0, done.stderr
        assert not ran.exists()
        assert ".tui-agent/hooks.toml (1 hook)" in done.stderr
        done = home.run(server, "hello", "--trust-workspace")
        assert done.code == 0, done.stderr
        assert ran.read_text() == "UserPromptSubmit"
    assert trusted_digest(home.workspace, "hooks") is None  # nothing remembered


@pytest.mark.heavy
async def test_the_app_asks_and_runs_the_hook_only_once_trusted(env: AppEnv) -> None:
    ran = _bring_hooks(env.workspace, MARK)
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer_text("One."), answer_text("Two."))
        async with running(server, env) as (_app, pilot):
            screen = await _question(pilot)
            assert ".tui-agent/hooks.toml (1 hook)" in screen.intro
            await _answer(pilot, screen, "n")
            await send(pilot, "hello")
            await wait_idle_agent(pilot)
            assert not ran.exists()
            await send(pilot, "/trust-workspace")
            screen = await _question(pilot)
            await _answer(pilot, screen, "t")
            await send(pilot, "again")
            await wait_idle_agent(pilot)
            await wait_for(pilot, ran.exists, "the trusted hook to run")
    assert trusted_digest(env.workspace, "hooks") is not None


def answer_text(text: str) -> Reply:
    return app_answer(PROTOCOL, text)


def test_a_changed_hooks_file_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    _bring_hooks(workspace, MARK)
    from tui_agent.wiring.workspace_content import trust_content

    trust_content(read_workspace_content(workspace))
    assert read_workspace_content(workspace).trusted("hooks")
    _bring_hooks(workspace, MARK, event="PreToolUse")
    content = read_workspace_content(workspace)
    assert not content.trusted("hooks")
    assert content.untrusted().hooks is not None


def test_a_workspace_may_not_run_a_hook_unconfined(tmp_path: Path) -> None:
    _bring_hooks(tmp_path, MARK)
    path = tmp_path / ".tui-agent" / "hooks.toml"
    path.write_text(path.read_text() + "unconfined = true\n", encoding="utf-8")
    with pytest.raises(WorkspaceHooksError, match="always run in the command sandbox"):
        read_workspace_hooks(tmp_path)
    assert "always run in the command sandbox" in " ".join(read_workspace_content(tmp_path).refused)


async def test_a_workspace_hook_cannot_approve_a_call(tmp_path: Path) -> None:
    from tui_agent.approval import approve
    from tui_agent.wiring.setup import use_workspace_hooks

    workspace = tmp_path / "ws"
    workspace.mkdir()
    allow = 'print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}}))\n'
    _bring_hooks(workspace, allow, event="PreToolUse")
    hooks = read_workspace_hooks(workspace)
    assert hooks is not None
    call = ("call_A", "write_file", {"path": "a.txt", "content": "x"})
    async with agent_over(
        "openai-responses",
        tmp_path,
        Reply(call_ops(call)),
        answer("openai-responses"),
        approver=ScriptedApprover(approve()),
    ) as h:
        use_workspace_hooks(h.agent.calls, hooks)
        await h.send("write")
        assert [r.tool_name for r in h.approver.requests] == ["write_file"]  # still asked
