"""The app's own git (the @ file index, checkpoints, rewind) against a hostile workspace: a
``.git/config`` (or a file it includes, or the repository a ``.git`` file points at) naming an
fsmonitor hook, hooks, filter drivers and a textconv, a ``git`` planted on ``PATH``, and
``.gitattributes`` asking for end-of-line conversion, ``ident``, re-encoding and filters. Real
git throughout; each program the workspace names would leave a marker outside the workspace
(with the environment it saw), and none may appear."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tui_agent.prompting.file_index import FileIndex, list_files
from tui_agent.sandbox import app_git, detect

from ..checkpoint_helpers import Bench
from ..fake_provider import FakeProvider
from ..test_ui_mentions import _mention
from ..ui_app_helpers import KEY, make_env, running

CLEAN = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, env=CLEAN, check=True, capture_output=True)


def _program(path: Path, marker: Path) -> str:
    """A program that leaves ``marker`` (holding its environment) and passes its input on."""
    path.write_text(f"#!/bin/sh\nenv >> '{marker}'\necho ran >> '{marker}'\ncat\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _repo(ws: Path) -> None:
    ws.mkdir(exist_ok=True)
    (ws / "src").mkdir(exist_ok=True)
    (ws / "src" / "main.py").write_text("print(1)\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "-A")
    _git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    (ws / "new.txt").write_text("untracked\n")


def _plant(ws: Path, how: str, hook: str) -> None:
    """``core.fsmonitor`` set the way ``how`` names (a sandboxed command could do each)."""
    if how == "config":
        _git(ws, "config", "core.fsmonitor", hook)
    elif how == "include":
        (ws / "inc.cfg").write_text(f"[core]\n\tfsmonitor = {hook}\n")
        _git(ws, "config", "include.path", str(ws / "inc.cfg"))
    elif how == "worktree-config":
        _git(ws, "config", "extensions.worktreeConfig", "true")
        _git(ws, "config", "--worktree", "core.fsmonitor", hook)
    elif how == "gitdir-file":  # .git is a file pointing at a repository elsewhere in the tree
        os.rename(ws / ".git", ws / "elsewhere.git")
        (ws / ".git").write_text("gitdir: elsewhere.git\n")
        _git(ws, "config", "core.worktree", str(ws))
        _git(ws, "config", "core.fsmonitor", hook)
    else:
        raise AssertionError(how)


@pytest.mark.parametrize("how", ["config", "include", "worktree-config", "gitdir-file"])
def test_the_file_index_never_runs_a_planted_fsmonitor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    ws = tmp_path / "ws"
    _repo(ws)
    marker = tmp_path / "outside-marker"
    _plant(ws, how, _program(tmp_path / "hook.sh", marker))
    # The hook does run for a plain git: the planting is real.
    subprocess.run(["git", "ls-files"], cwd=ws, env=CLEAN, check=True, capture_output=True)
    assert marker.exists()
    marker.unlink()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-KEY-IN-THE-APP")
    files = list_files(ws)
    assert {"src/main.py", "new.txt"} <= set(files)
    assert not marker.exists()


def test_a_git_planted_on_path_in_the_workspace_is_not_the_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    _repo(ws)
    marker = tmp_path / "outside-marker"
    (ws / "bin").mkdir()
    _program(ws / "bin" / "git", marker)
    path = os.environ["PATH"]
    for planted in (str(ws / "bin"), "bin", "."):  # absolute, relative, the current folder
        monkeypatch.setenv("PATH", planted + os.pathsep + path)
        planted_git = ws / "git"
        planted_git.write_bytes((ws / "bin" / "git").read_bytes())
        planted_git.chmod(0o755)
        assert "src/main.py" in list_files(ws)
        assert not marker.exists(), planted
        planted_git.unlink()


def test_the_apps_git_gets_no_key_and_no_git_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    _repo(ws)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-KEY")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "/bin/false")
    monkeypatch.setenv("GIT_EXEC_PATH", str(ws))
    env = app_git.environment(ws)
    assert "ANTHROPIC_API_KEY" not in env
    assert not {"GIT_CONFIG_COUNT", "GIT_EXEC_PATH"} & set(env)
    done = app_git.run(["config", "--get", "core.fsmonitor"], workspace=ws, cwd=ws)
    assert done.stdout.strip() == b"false"


@pytest.mark.heavy
async def test_typing_at_in_the_app_never_runs_the_workspaces_fsmonitor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace that arrives with the hook in its config: the person types @."""
    env = make_env(tmp_path, monkeypatch)
    _repo(env.workspace)
    marker = tmp_path / "outside-marker"
    _plant(env.workspace, "config", _program(tmp_path / "hook.sh", marker))
    with FakeProvider("anthropic", api_key=KEY, require_tools=False) as server:
        async with running(server, env) as (_app, pilot):
            labels = await _mention(pilot, "main")
            assert "src/main.py" in labels
    assert not marker.exists(), marker.read_text()[-2000:]


def test_the_index_still_lists_a_repo_after_the_fix(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _repo(ws)
    (ws / ".gitignore").write_text("*.log\n")
    (ws / "x.log").write_text("l\n")
    index = FileIndex(ws)
    index.refresh()
    assert index.ready.wait(30)
    assert index.search("main") == ["src/main.py"]
    assert not index.search("x.log")


# The workspace's attributes and config, each of which changed the bytes a snapshot kept or
# would run a program when the shadow repository read the file.
ATTRIBUTES = (
    "* text=auto\n"
    "*.lf text eol=lf\n"
    "*.crlf text eol=crlf\n"
    "*.id ident\n"
    "*.u16 working-tree-encoding=UTF-16LE-BOM text\n"
    "*.f filter=evil diff=evil merge=evil\n"
)
FILES = {
    "dos.lf": b"one\r\ntwo\r\n",
    "unix.crlf": b"one\ntwo\n",
    "mixed.txt": b"a\r\nb\nc\r\n",
    "version.id": b"$Id: 0123456789abcdef0123456789abcdef01234567 $\nbody\n",
    "wide.u16": "héllo\r\n".encode("utf-16-le"),
    "data.f": b"filtered?\n",
    "sub/deep.lf": b"x\r\n",
}


async def test_checkpoint_and_rewind_keep_bytes_whatever_the_attributes(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    ws = bench.workspace
    marker = tmp_path / "outside-marker"
    program = _program(tmp_path / "evil.sh", marker)
    for rel, data in FILES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_bytes(data)
    (ws / ".gitattributes").write_text(ATTRIBUTES)
    (ws / "sub" / ".gitattributes").write_text("* eol=lf text\n")
    _git(ws, "init", "-q")
    for key in ("filter.evil.clean", "filter.evil.smudge", "filter.evil.process"):
        _git(ws, "config", key, program)
    for key in ("diff.evil.textconv", "merge.evil.driver", "core.fsmonitor"):
        _git(ws, "config", key, program)
    _git(ws, "config", "filter.evil.required", "true")
    for hook in ("pre-commit", "post-checkout", "pre-auto-gc", "reference-transaction"):
        _program(ws / ".git" / "hooks" / hook, marker)
    before = bench.state()
    command = "for f in $(find . -path ./.git -prune -o -type f -print); do echo x > $f; done"
    out = await bench.call("run_command", json.dumps({"command": command}))
    assert not out.is_error, out.text
    plan = bench.plan()
    assert not [f for f in plan.files if f.action not in ("restore", "delete")], plan.files
    result = bench.rewind()
    assert not result.conflicts_left, result
    assert bench.state() == before
    for rel, data in FILES.items():
        assert (ws / rel).read_bytes() == data, rel
    assert not marker.exists(), marker.read_text()[-2000:]


async def test_a_shadow_made_before_keeps_bytes_from_now_on(tmp_path: Path) -> None:
    """A shadow repository an older version filled (no info/attributes: its index holds the
    converted blobs, with the files' stat data) is fixed on next use: the next snapshot stores
    the bytes, though the file did not change since."""
    bench = Bench(tmp_path)
    ws = bench.workspace
    (ws / ".gitattributes").write_text("* text eol=lf\n")
    (ws / "dos.txt").write_bytes(b"a\r\n")
    await bench.call("run_command", json.dumps({"command": "echo > other"}))
    shadow = bench.folder.shadow
    (shadow / "info" / "attributes").unlink()
    env = {**CLEAN, "GIT_DIR": str(shadow), "GIT_WORK_TREE": str(ws)}
    env["GIT_INDEX_FILE"] = str(shadow / "index")
    (shadow / "index").unlink()
    for path in ws.iterdir():  # not racily clean: the index's stat data is trusted
        os.utime(path, (1_600_000_000, 1_600_000_000), follow_symlinks=False)
    subprocess.run(["git", "add", "-A"], cwd=ws, env=env, check=True)  # the old way
    since = len(bench.kept.records)
    await bench.call("run_command", json.dumps({"command": "echo x > dos.txt"}))
    bench.rewind(since)
    assert (ws / "dos.txt").read_bytes() == b"a\r\n"


def test_the_file_index_git_runs_in_the_read_only_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defense in depth: were a setting to slip past the overrides (here: none are given), what
    git ran for the file index could neither write outside nor inside the workspace."""
    if not detect().landlock_abi:
        pytest.skip("needs Landlock (see tui-agent doctor)")
    ws = tmp_path / "ws"
    _repo(ws)
    marker = tmp_path / "outside-marker"
    hook = ws / "hook.sh"  # planted in the workspace, as a command would
    hook.write_text(
        f"#!/bin/sh\necho hook-ran >&2\necho x > '{marker}' || echo refused-outside >&2\n"
        f"echo x > '{ws}/planted' || echo refused-inside >&2\n"
    )
    hook.chmod(0o755)
    _git(ws, "config", "core.fsmonitor", str(hook))
    monkeypatch.setattr(app_git, "overrides", lambda: ["--no-pager"])
    seen: list[subprocess.CompletedProcess[bytes]] = []
    real_run = app_git.run

    def run(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        seen.append(real_run(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(app_git, "run", run)
    assert "src/main.py" in list_files(ws)
    (done,) = seen
    assert b"hook-ran" in done.stderr, done.stderr  # the hole is real: the hook ran
    assert b"refused-outside" in done.stderr and b"refused-inside" in done.stderr
    assert not marker.exists() and not (ws / "planted").exists()
