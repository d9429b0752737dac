"""The workspace's git folders are read-only to a sandboxed command (workspace-write mode): real
commands under the real sandbox try to plant a hook or a config that the person's next git would
run, through every way to reach the git folder (a ``.git`` folder, a ``.git`` file naming one
inside the workspace, a nested repository), and try to undo the protection. The rest of the
workspace stays writable. With namespaces (a read-only bind mount) and with Landlock alone
(the git folders left out of the write grant)."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from tui_agent.config.model import Config
from tui_agent.sandbox import SandboxMode, SandboxPolicy, detect
from tui_agent.sandbox.git_guard import git_folders
from tui_agent.sandbox.protections import protections
from tui_agent.tools import ToolContext, ToolOutput, builtin_registry
from tui_agent.wiring.sandbox_choice import session_policy

from ..tools_helpers import call

REGISTRY = builtin_registry()
CLEAN = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
pytestmark = pytest.mark.skipif(
    not detect().landlock_abi, reason="needs Landlock (see tui-agent doctor)"
)
MODES = ["namespaces", "landlock-only"]
ATTACKS = (
    "echo '[core]' >> {git}/config; echo '  fsmonitor = /tmp/x' >> {git}/config",
    "mkdir -p {git}/hooks; printf '#!/bin/sh\\ntouch /tmp/owned\\n' > {git}/hooks/pre-commit",
    "chmod +x {git}/hooks/pre-commit.sample; cp /bin/true {git}/hooks/post-checkout",
    "mv {git}/config {git}/config.old; echo x > {git}/config",
    "mv {git} {git}.moved; mkdir -p {git}/hooks; echo x > {git}/hooks/pre-commit",
    "rm -rf {git}; mkdir -p {git}/hooks; echo x > {git}/hooks/pre-commit",
    "ln -s /tmp/elsewhere {git}/hooks/pre-push; ln {git}/config hard-link-of-config",
    "umount {git}; mount -o remount,rw {git}; echo x >> {git}/config",
    "git config core.fsmonitor /tmp/x; git config -f {git}/config core.hooksPath /tmp",
)


def _git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, env=CLEAN, check=True, capture_output=True)


def _picture(folder: Path) -> dict[str, tuple[int, bytes]]:
    found: dict[str, tuple[int, bytes]] = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(dirpath) / name
            info = path.lstat()
            content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path.relative_to(folder))] = (info.st_mode, content)
    return found


def _ctx(tmp_path: Path, mode: str) -> ToolContext:
    ws = (tmp_path / "ws").resolve()
    ctx = ToolContext(workspace=ws, command_timeout_s=30)
    if mode == "landlock-only":
        caps = replace(detect(), namespaces=False, fresh_proc=False)
    else:
        if not detect().namespaces:
            pytest.skip("needs user namespaces")
        caps = detect()
    return replace(ctx, capabilities=caps)


async def _run(ctx: ToolContext, command: str) -> ToolOutput:
    return await call(REGISTRY, ctx, "run_command", json.dumps({"command": command}))


def _layout(ws: Path, how: str) -> Path:
    """A repository in the workspace laid out as ``how``; returns its git folder."""
    ws.mkdir()
    (ws / "src").mkdir()
    (ws / "src" / "a.txt").write_text("a\n")
    if how == "folder":
        _git(ws, "init", "-q")
        return ws / ".git"
    if how == "gitdir-file":  # git init --separate-git-dir inside the workspace
        _git(ws, "init", "-q", "--separate-git-dir", str(ws / "store.git"))
        assert (ws / ".git").is_file()
        return ws / "store.git"
    if how == "symlink":  # .git a link to the real folder, inside the workspace
        _git(ws, "init", "-q")
        os.rename(ws / ".git", ws / "real.git")
        (ws / ".git").symlink_to("real.git")
        return ws / "real.git"
    if how == "nested":
        (ws / "lib").mkdir()
        _git(ws / "lib", "init", "-q")
        return ws / "lib" / ".git"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["folder", "gitdir-file", "symlink", "nested"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_command_cannot_change_the_workspaces_git(
    tmp_path: Path, mode: str, how: str
) -> None:
    ctx = _ctx(tmp_path, mode)
    ws = ctx.workspace
    git = _layout(ws, how)
    (git / "hooks").mkdir(exist_ok=True)
    (git / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\n")
    before = _picture(git)
    dot_git_before = (ws / ".git").read_bytes() if (ws / ".git").is_file() else None
    rel = os.path.relpath(git, ws)
    for attack in ATTACKS:
        await _run(ctx, attack.format(git=rel))
        assert _picture(git) == before, attack
        assert os.path.isdir(git) and not os.path.exists(f"{git}.moved"), attack
    out = await _run(ctx, f"echo x >> {rel}/config")
    assert out.is_error and "its git folders (.git, git add and commit) are refused" in out.text
    if dot_git_before is not None:  # the .git file naming the folder is kept too
        await _run(ctx, "echo 'gitdir: /tmp/evil' > .git; rm -f .git")
        assert (ws / ".git").read_bytes() == dot_git_before
    if how == "symlink":  # the link itself cannot be replaced
        await _run(ctx, "mkdir -p evil/hooks; rm -f .git; ln -sfn evil .git; mv .git x")
        assert os.readlink(ws / ".git") == "real.git"
    assert not (ws / "hard-link-of-config").exists()
    # The rest of the workspace is as writable as before.
    out = await _run(ctx, "echo b > src/b.txt && echo more >> src/a.txt && mkdir -p src/n/m")
    assert not out.is_error, out.text
    assert (ws / "src" / "b.txt").read_text() == "b\n"
    assert (ws / "src" / "a.txt").read_text() == "a\nmore\n"
    # Reading git works inside the sandbox.
    out = await _run(ctx, f"git --git-dir={rel} --work-tree={os.path.dirname(rel) or '.'} status")
    assert not out.is_error, out.text


@pytest.mark.parametrize("mode", MODES)
async def test_new_top_level_files_where_the_kernel_allows(tmp_path: Path, mode: str) -> None:
    """With a mount namespace a new file at the workspace's top is made as before; with
    Landlock alone it is refused in a repository (the documented cost), not elsewhere."""
    ctx = _ctx(tmp_path, mode)
    ws = ctx.workspace
    _layout(ws, "folder")
    out = await _run(ctx, "echo new > top.txt")
    assert (ws / "top.txt").exists() == (mode == "namespaces"), out.text
    plain = replace(ctx, workspace=(tmp_path / "plain").resolve())
    plain.workspace.mkdir()
    out = await _run(plain, "echo new > top.txt && mkdir d")
    assert not out.is_error and (plain.workspace / "top.txt").exists(), out.text


async def test_read_only_and_off_modes_keep_their_meaning(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, "landlock-only")
    ws = ctx.workspace
    _layout(ws, "folder")
    off = replace(ctx, sandbox=replace(ctx.sandbox, mode=SandboxMode.OFF))
    await _run(off, "echo '# mine' >> .git/config")  # the person's own choice: unconfined
    assert (ws / ".git" / "config").read_text().endswith("# mine\n")


def test_git_folders_found(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    git = _layout(ws, "gitdir-file")
    (ws / "lib").mkdir()
    _git(ws / "lib", "init", "-q")
    (ws / "outside-link").symlink_to(tmp_path)
    found = set(git_folders(str(ws)))
    assert found == {str(ws / ".git"), str(git), str(ws / "lib" / ".git")}
    assert git_folders(str(tmp_path / "nothing-here")) == ()


def test_doctor_says_whether_git_protection_holds() -> None:
    policy = SandboxPolicy()
    full = {p.name: p for p in protections(policy, detect())}
    (name,) = [n for n in full if n.startswith("git folders read-only")]
    assert full[name].active == bool(detect().landlock_abi)
    degraded = replace(detect(), namespaces=False, fresh_proc=False)
    why = {p.name: p for p in protections(policy, degraded)}[name].why
    assert "new entries at the workspace's top are refused" in why
    none = replace(degraded, landlock_abi=0)
    assert not {p.name: p for p in protections(policy, none)}[name].active
    read_only = SandboxPolicy(mode=SandboxMode.READ_ONLY)
    assert {p.name: p for p in protections(read_only, none)}[name].active is False


@pytest.mark.parametrize("where", ["repository", "personal", "include"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_hooks_folder_or_included_config_in_the_workspace_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, where: str
) -> None:
    """``core.hooksPath = .githooks`` (the repository's config, or the person's own) and a
    config file the repository includes from the workspace: what the person's git would run
    or read, kept read-only like ``.git``."""
    ctx = _ctx(tmp_path, mode)
    ws = ctx.workspace
    _layout(ws, "folder")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    (ws / ".githooks").mkdir()
    (ws / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (ws / "project.gitconfig").write_text("[user]\n\tname = t\n")
    if where == "repository":
        _git(ws, "config", "core.hooksPath", ".githooks")
    elif where == "personal":
        (home / ".gitconfig").write_text("[core]\n\thooksPath = .githooks\n")
    else:
        _git(ws, "config", "include.path", "../project.gitconfig")
    kept = ws / ("project.gitconfig" if where == "include" else ".githooks/pre-commit")
    before = kept.read_bytes()
    for attack in (
        f"echo 'touch /tmp/owned' >> {kept.relative_to(ws)}",
        f"rm -f {kept.relative_to(ws)}; mv {kept.relative_to(ws)} moved",
        "printf '[core]\\n\\tfsmonitor = /tmp/x\\n' > project.gitconfig",
        "printf '#!/bin/sh\\ntouch /tmp/owned\\n' > .githooks/post-checkout",
    ):
        await _run(ctx, attack)
        assert kept.read_bytes() == before, attack
    if where != "include":
        assert not (ws / ".githooks" / "post-checkout").exists()
    out = await _run(ctx, "echo b > src/b.txt")
    assert not out.is_error and (ws / "src" / "b.txt").exists(), out.text


async def test_the_setting_turns_it_off_and_the_approval_binds_it(tmp_path: Path) -> None:
    """``sandbox_protect_git = false``: the git folders are the command's to write (and, with
    Landlock alone, new top-level files work again); the policy's key changes with it, so an
    approval given under one does not run under the other."""
    config = Config.model_validate({"settings": {"sandbox_protect_git": False}})
    policy = session_policy(config)
    assert not policy.protect_git and session_policy(Config()).protect_git
    assert policy.key() != session_policy(Config()).key()
    with pytest.raises(ValidationError):
        Config.model_validate({"settings": {"sandbox_protect_git": "no"}})
    ctx = _ctx(tmp_path, "landlock-only")
    ctx = replace(ctx, sandbox=policy)
    _layout(ctx.workspace, "folder")
    out = await _run(ctx, "echo '# mine' >> .git/config && echo new > top.txt")
    assert not out.is_error, out.text
    assert (ctx.workspace / ".git" / "config").read_text().endswith("# mine\n")
    (item,) = [p for p in protections(policy, detect()) if p.name.startswith("git folders")]
    assert item.why == "writable: sandbox_protect_git = false"


@pytest.mark.parametrize("mode", MODES)
async def test_a_program_the_config_names_in_the_workspace_is_kept(
    tmp_path: Path, mode: str
) -> None:
    """The repository's config (set before, by the person) runs workspace files: an fsmonitor
    script, an alias's script, a filter's cleaner, a textconv. A command cannot change them;
    their neighbours stay writable."""
    ctx = _ctx(tmp_path, mode)
    ws = ctx.workspace
    _layout(ws, "folder")
    (ws / "tools").mkdir()
    scripts = ["tools/watch.sh", "tools/x.sh", "tools/clean.sh", "tools/conv"]
    for rel in [*scripts, "tools/other.txt"]:
        (ws / rel).write_text("#!/bin/sh\nexit 0\n")
    _git(ws, "config", "core.fsmonitor", "./tools/watch.sh")
    _git(ws, "config", "alias.x", "!sh tools/x.sh --flag")
    _git(ws, "config", "filter.f.clean", "'tools/clean.sh' %f")
    _git(ws, "config", "diff.d.textconv", "tools/conv")
    for rel in scripts:
        out = await _run(ctx, f"echo 'touch /tmp/owned' >> {rel}; rm -f {rel}; mv {rel} x")
        assert (ws / rel).read_text() == "#!/bin/sh\nexit 0\n", (rel, out.text)
    out = await _run(ctx, "echo more >> tools/other.txt")
    assert not out.is_error, out.text
