"""The demo's own workspace (tui_agent/demo/workspace.py): used, seeded and said when the demo
model runs with no workspace named; a named one (--workspace, [settings] workspace) wins; seeding
never replaces a file; the rest of the data folder stays out of the tools' reach.

The real host (open_host) on the demo model at pace 0, XDG folders under tmp_path, no key."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tui_agent.agent.events import ToolFinished
from tui_agent.approval.approver import HeadlessApprover
from tui_agent.demo.workspace import SAMPLES, open_demo_workspace, seed
from tui_agent.sandbox.detect import detect
from tui_agent.session.paths import data_dir, demo_workspace_dir, sessions_dir
from tui_agent.wiring.host import SessionHost, open_host
from tui_agent.wiring.host_options import HostOptions


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated user started in an empty folder ``cwd`` (which must stay untouched)."""
    for name in ("config", "data", "state", "cache"):
        (tmp_path / name).mkdir()
        monkeypatch.setenv(f"XDG_{name.upper()}_HOME", str(tmp_path / name))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    for name in [n for n in os.environ if n.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    started = tmp_path / "cwd"
    started.mkdir()
    monkeypatch.chdir(started)
    return started


def _open(options: HostOptions, approve: str = "never") -> SessionHost:
    async def go() -> SessionHost:
        approver = HeadlessApprover(approve)  # type: ignore[arg-type]
        return await open_host(options, approver, mode=approver.mode)

    return asyncio.run(go())


def _notices(options: HostOptions) -> tuple[Path, list[str]]:
    host = _open(options)
    asyncio.run(host.close())
    return host.workspace, [notice.text for notice in host.notices]


def _results(options: HostOptions, prompt: str) -> list[ToolFinished]:
    """The tool results of one demo turn, every call approved."""

    async def go() -> list[ToolFinished]:
        approver = HeadlessApprover("all")
        host = await open_host(options, approver, mode=approver.mode)
        try:
            return [e async for e in host.agent.send(prompt) if isinstance(e, ToolFinished)]
        finally:
            await host.close()

    return asyncio.run(go())


def test_the_demo_without_a_workspace_uses_its_own_seeded_folder_and_says_where(
    cwd: Path,
) -> None:
    workspace, notices = _notices(HostOptions(profile="demo"))
    assert workspace == demo_workspace_dir().resolve()
    assert workspace.parent == data_dir().resolve()
    for name, text in SAMPLES.items():
        assert (workspace / name).read_text(encoding="utf-8") == text
    assert any(f"the demo works in its own folder {workspace}" in text for text in notices)
    assert list(cwd.iterdir()) == []


def test_an_explicit_workspace_wins(cwd: Path, tmp_path: Path) -> None:
    named = tmp_path / "mine"
    named.mkdir()
    workspace, notices = _notices(HostOptions(profile="demo", workspace=str(named)))
    assert workspace == named.resolve()
    assert not demo_workspace_dir().exists()
    assert not any("its own folder" in text for text in notices)


def test_the_configs_workspace_wins(cwd: Path, tmp_path: Path) -> None:
    named = tmp_path / "from-config"
    named.mkdir()
    config = tmp_path / "config" / "tui-agent" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[settings]\nworkspace = "{named}"\n', encoding="utf-8")
    workspace, _shown = _notices(HostOptions(profile="demo"))
    assert workspace == named.resolve()
    assert not demo_workspace_dir().exists()


def test_a_real_provider_works_where_it_is_started(
    cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("A_TEST_KEY", "sk-test-0123456789")
    url = "http://127.0.0.1:9/v1"
    options = HostOptions(protocol="openai-chat", model="m", base_url=url, api_key_env="A_TEST_KEY")
    workspace, _shown = _notices(options)
    assert workspace == cwd.resolve()
    assert not demo_workspace_dir().exists()


def test_seeding_again_never_replaces_a_changed_file_and_restores_a_deleted_one(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "demo"
    assert open_demo_workspace(folder) == folder.resolve()
    (folder / "notes.md").write_text("my own notes\n", encoding="utf-8")
    (folder / "README.md").unlink()
    (folder / "src" / "greet.py").unlink()
    (folder / "src" / "greet.py").symlink_to(tmp_path / "elsewhere.py")
    assert seed(folder) == ["README.md"]
    assert (folder / "notes.md").read_text(encoding="utf-8") == "my own notes\n"
    assert (folder / "README.md").read_text(encoding="utf-8") == SAMPLES["README.md"]
    assert not (tmp_path / "elsewhere.py").exists()  # never written through a link


def test_the_readme_examples_work_in_the_demo_workspace(cwd: Path) -> None:
    options = HostOptions(profile="demo")
    [read] = _results(options, "read notes.md")
    assert read.status == "done" and "# Notes" in read.output
    [search] = _results(options, "search TODO")
    assert search.status == "done"
    assert "src/greet.py:5:" in search.output and "notes.md" in search.output
    [listed] = _results(options, "list the files")
    assert listed.output.split() == ["README.md", "notes.md", "src/"]
    both = _results(options, "do both in parallel")
    assert [r.status for r in both] == ["done", "done"]


def test_the_rest_of_the_data_folder_stays_out_of_reach(cwd: Path) -> None:
    options = HostOptions(profile="demo")
    _results(options, "list the files")  # leaves a session file behind
    [session] = sessions_dir().glob("*.jsonl")
    workspace = demo_workspace_dir()
    (workspace / "link").symlink_to(sessions_dir())
    attempts = {
        f"read ../sessions/{session.name}": "outside the workspace",
        f"read link/{session.name}": "outside the workspace through a symlink",
        f"read {session}": "outside the workspace",
        "list ../": "outside the workspace",
        "search demo in ../sessions": "outside the workspace",
    }
    for prompt, why in attempts.items():
        [result] = _results(options, prompt)
        assert result.status == "failed" and why in result.output, prompt
    if not detect().landlock_abi:
        return  # commands are confined by Landlock only where the kernel has it
    [result] = _results(options, f"$ cat ../sessions/{session.name}")
    assert result.status == "failed" and "Permission denied" in result.output
    [result] = _results(options, "$ cat notes.md")  # while the workspace stays readable
    assert result.status == "done" and "# Notes" in result.output


def test_continue_finds_the_last_demo_session(cwd: Path) -> None:
    _results(HostOptions(profile="demo"), "list the files")
    [session] = sessions_dir().glob("*.jsonl")
    host = _open(HostOptions(profile="demo", continue_last=True))
    asyncio.run(host.close())
    assert not host.created and host.writer.session_id == session.stem
    assert any(n.text.startswith(f"resumed session {session.stem}") for n in host.notices)


async def test_the_app_says_where_the_demo_works(cwd: Path) -> None:
    from tui_agent.ui.app import TuiAgentApp

    from .ui_app_helpers import wait_text

    # No profile and no key: the demo model, and no workspace named: its own folder.
    async with TuiAgentApp(HostOptions()).run_test(size=(160, 40)) as pilot:
        await wait_text(pilot, "the demo works in its own folder")
        app = pilot.app
        assert isinstance(app, TuiAgentApp) and app.host is not None
        assert app.host.workspace == demo_workspace_dir().resolve()
