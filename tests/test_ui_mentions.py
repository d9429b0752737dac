"""@file mentions (Pilot, the real app against the fake provider): ``@`` offers the workspace's
files (.gitignore honoured), taking one attaches its content as a chip, the request holds it as
a text block and the session records it; denied paths, the app's own folders and a symlink out
of the workspace are refused; a chip opens and can be removed; a resumed session keeps it."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tui_agent.prompting.attachments import AttachError, read_attachment
from tui_agent.session.records import UserRecord
from tui_agent.tools.spec import ToolContext
from tui_agent.ui import mentions
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.widgets.attachment_chips import AttachmentChip, AttachmentView
from tui_agent.ui.widgets.completion_list import CompletionList
from tui_agent.ui.widgets.prompt_input import PromptInput

from .approval_prompt_app import screen_text
from .fake_provider import FakeProvider
from .ui_app_helpers import (
    KEY,
    SIZE,
    AppEnv,
    answer,
    make_app,
    make_env,
    prompt_text,
    running,
    wait_for,
    wait_idle_agent,
    wait_text,
)

PROTOCOL = "anthropic"
MAIN = "def main():\n    return 'MARKER-MAIN-41'\n"
UTIL = "UTIL-MARKER-77\n"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppEnv:
    env = make_env(tmp_path, monkeypatch)
    ws = env.workspace
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text(MAIN)
    (ws / "src" / "util.py").write_text(UTIL)
    (ws / "build").mkdir()
    (ws / "build" / "main_built.py").write_text("ignored\n")
    (ws / ".gitignore").write_text("build/\n")
    (ws / "secrets").mkdir()
    (ws / "secrets" / "main_key.txt").write_text("TOPSECRET\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("OUTSIDE-CONTENT\n")
    (ws / "main_link.txt").symlink_to(outside)
    folder = tmp_path / "config" / "tui-agent"
    folder.mkdir(parents=True)
    denied = json.dumps(str(ws / "secrets"))
    (folder / "config.toml").write_text(f"[settings]\nsandbox_denied_paths = [{denied}]\n")
    return env


def _toasts(app: TuiAgentApp) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


def _labels(app: TuiAgentApp) -> list[str]:
    return [entry.label for entry in app.query_one(CompletionList).entries]


async def _type(pilot: Pilot[None], text: str) -> None:
    pilot.app.query_one(PromptInput).focus()
    for char in text:
        await pilot.press({" ": "space", "@": "at", ".": "full_stop"}.get(char, char))
    await pilot.pause()


async def _mention(pilot: Pilot[None], query: str) -> list[str]:
    app = pilot.app
    assert isinstance(app, TuiAgentApp)
    await _type(pilot, "@" + query)
    await wait_for(pilot, lambda: app.query_one(CompletionList).open, "the file list")
    return _labels(app)


@pytest.mark.heavy
async def test_attach_a_file_sent_and_recorded(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "Seen."))
        async with running(server, env) as (app, pilot):
            await _type(pilot, "look at ")
            labels = await _mention(pilot, "main")
            assert labels[0] == "src/main.py"  # the file name's own match first
            assert "build/main_built.py" not in labels  # .gitignore
            await pilot.press("tab")
            assert prompt_text(app) == "look at @src/main.py "
            chips = list(app.query(AttachmentChip))
            assert [c.attachment.path for c in chips] == ["src/main.py"]
            await wait_text(pilot, "@src/main.py (")
            await pilot.press("enter")
            await wait_idle_agent(pilot)
            await wait_text(pilot, "Seen.")
            await wait_text(pilot, "📎 attached @src/main.py")
            assert not app.query(AttachmentChip)
            body = server.requests[0].json
            content = body["messages"][0]["content"]
            assert content[0] == {"type": "text", "text": "look at @src/main.py "}
            assert content[1]["type"] == "text"
            assert content[1]["text"].startswith('<attached_file path="src/main.py">')
            assert "MARKER-MAIN-41" in content[1]["text"]
            session = app.host.writer.session_id if app.host else ""
        (user,) = [r for r in env.records() if r["type"] == "user"]
        assert user["attachments"] == [{"path": "src/main.py", "text": MAIN, "truncated": False}]
        # Resumed: the attachment is shown and goes to the model again with the history.
        server.script(answer(PROTOCOL, "Again."))
        resumed = dataclasses.replace(make_app(server, env).options, resume=session)
        async with TuiAgentApp(resumed).run_test(size=SIZE) as pilot:
            app = pilot.app
            assert isinstance(app, TuiAgentApp)
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            await wait_text(pilot, "📎 attached @src/main.py")
            app.query_one(PromptInput).insert("and now?")
            await pilot.press("enter")
            await wait_idle_agent(pilot)
            assert "MARKER-MAIN-41" in server.requests[1].body.decode()
            await pilot.press("ctrl+q")
        server.assert_all_consumed()


@pytest.mark.heavy
async def test_denied_and_outside_paths_are_refused(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (app, pilot):
            labels = await _mention(pilot, "main_key")
            assert labels == ["secrets/main_key.txt"]
            await pilot.press("tab")
            await wait_for(pilot, lambda: "sandbox denies" in _toasts(app), "the refusal")
            assert not app.query(AttachmentChip)
            assert prompt_text(app) == "@main_key"  # left as typed
            app.query_one(PromptInput).clear()
            labels = await _mention(pilot, "main_link")
            assert labels == ["main_link.txt"]
            await pilot.press("tab")
            await wait_for(pilot, lambda: "outside the workspace" in _toasts(app), "refusal")
            assert not app.query(AttachmentChip)
        assert server.requests == []


def test_the_apps_own_folders_and_other_files_are_refused(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    own = ws / ".own"
    own.mkdir(parents=True)
    (own / "config.toml").write_text("x")
    (ws / "two.txt").write_text("y")
    os.link(ws / "two.txt", ws / "hard.txt")
    (ws / "bin.dat").write_bytes(b"\x00\x01\x02" * 100)
    (ws / "big.txt").write_text("z" * 100)
    ctx = ToolContext(workspace=ws, protected=(own,))
    for path, why in [
        (".own/config.toml", "app's own files"),
        ("hard.txt", "hard links"),
        ("bin.dat", "binary"),
        ("missing.txt", "no such file"),
        ("../x", "outside the workspace"),
    ]:
        with pytest.raises(AttachError, match=why):
            read_attachment(path, ctx)
    cut = read_attachment("big.txt", ctx, cap=10)
    assert cut.truncated and cut.text == "z" * 10


def test_old_user_records_still_load() -> None:
    record = UserRecord.model_validate({"type": "user", "text": "hi", "ts": 1.0})
    assert record.attachments == []


@pytest.mark.heavy
async def test_chip_opens_and_is_removed(env: AppEnv) -> None:
    with FakeProvider(PROTOCOL, api_key=KEY, require_tools=False) as server:
        server.script(answer(PROTOCOL, "Ok."))
        async with running(server, env) as (app, pilot):
            await _mention(pilot, "main.py")
            await pilot.press("tab")
            await _type(pilot, "and ")
            await _mention(pilot, "util")
            await pilot.press("tab")
            await wait_for(pilot, lambda: len(app.query(AttachmentChip)) == 2, "two chips")
            first, second = app.query(AttachmentChip)
            await pilot.click(first, offset=(2, 0))
            await wait_for(pilot, lambda: isinstance(app.screen, AttachmentView), "the view")
            assert "MARKER-MAIN-41" in screen_text(app)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, AttachmentView), "closed")
            second.focus()
            await pilot.press("delete")
            await wait_for(pilot, lambda: len(app.query(AttachmentChip)) == 1, "one chip")
            app.query_one(PromptInput).focus()
            await pilot.press("enter")
            await wait_idle_agent(pilot)
            sent = server.requests[0].body.decode()
            assert "MARKER-MAIN-41" in sent and "UTIL-MARKER-77" not in sent
        server.assert_all_consumed()


@pytest.mark.heavy
async def test_a_new_mention_lists_a_file_made_since_the_last_one(
    env: AppEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The @ list was stale on its first query after a file was created (for up to 10 s, and
    until the next key): a new mention rebuilds it and the list follows by itself."""
    # Any list is older than a new mention accepts (instead of waiting out the real 1 s).
    monkeypatch.setattr(mentions, "FRESH_S", 0.0)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        async with running(server, env) as (app, pilot):
            assert "fresh.txt" not in await _mention(pilot, "")
            box = app.query_one(PromptInput)
            box.clear()
            await pilot.pause()
            (env.workspace / "fresh.txt").write_text("new\n")
            await _type(pilot, "@fre")
            await wait_for(
                pilot, lambda: "fresh.txt" in " ".join(_labels(app)), "the new file", 5.0
            )
