"""Execution sandbox, paths: every file tool refuses every way out of the workspace.

Each attack is tried on every file tool (read_file, list_dir, search_text, write_file,
edit_file): `..`, absolute paths, `~`, a sibling folder sharing the workspace's name as a
prefix, a symlink out as the last component, a symlinked parent folder, a symlink swapped in
after the sandbox check (the open must not follow it), and a hard link to a file outside (made
before the call or swapped in after the check: no tool reads, edits or replaces it). Writes to
the app's own config and session folders are refused even when those folders lie inside the
workspace. Every refusal is an error result, nothing outside changes, and no secret comes back.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tui_agent.session.paths import protected_dirs
from tui_agent.tools import ToolContext, ToolOutput, builtin_registry
from tui_agent.tools.builtin import edit_file, list_dir, read_file, search_text, write_file

from ..tools_helpers import call

REGISTRY = builtin_registry()
SECRET = "TOP SECRET"
FILE_TOOLS = ["read_file", "list_dir", "search_text", "write_file", "edit_file"]


class Layout:
    """tmp/ws (the workspace), tmp/outside (the secret), tmp/ws2 (a sibling), tmp/home (~)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ws = root / "ws"
        self.outside = root / "outside"
        self.sibling = root / "ws2"
        self.home = root / "home"
        for folder in (self.ws, self.outside / "sub", self.sibling / "sub", self.home / "sub"):
            folder.mkdir(parents=True)
        for folder in (self.outside, self.sibling, self.home):
            (folder / "secret.txt").write_text(f"{SECRET}\n")
            (folder / "sub" / "secret.txt").write_text(f"{SECRET}\n")
        (self.ws / "real").mkdir()
        (self.ws / "real" / "f.txt").write_text("inside\n")
        os.symlink(self.outside / "secret.txt", self.ws / "file_link")
        os.symlink(self.outside, self.ws / "dir_link")
        os.symlink(self.outside / "sub", self.ws / "real" / "nested_link")
        self.ctx = ToolContext(workspace=self.ws.resolve())

    def fingerprint(self) -> dict[str, str]:
        """Everything outside the workspace: every path and its content's hash."""
        found = {}
        for folder in (self.outside, self.sibling, self.home):
            for path in sorted(folder.rglob("*")):
                data = path.read_bytes() if path.is_file() else b"<dir>"
                found[str(path)] = hashlib.sha256(data).hexdigest()
        for path in self.root.iterdir():
            found.setdefault(str(path), "<top>")
        return found


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    made = Layout(tmp_path)
    # A tool that expanded "~" would land here, on a secret.
    monkeypatch.setenv("HOME", str(made.home))
    return made


def arguments(tool: str, path: str) -> str:
    """The tool's arguments aimed at ``path``, each built to touch the secret if it could."""
    values: dict[str, Any] = {"path": path}
    if tool == "search_text":
        values["pattern"] = "SECRET"
    elif tool == "write_file":
        values["content"] = "PWNED"
    elif tool == "edit_file":
        values.update(old="SECRET", new="PWNED")
    return json.dumps(values)


# (attack, path to a file, path to a folder); {out}, {sibling} are filled in per test.
ATTACKS = [
    ("dotdot", "../outside/secret.txt", "../outside/sub"),
    ("dotdot-inside-first", "real/../../outside/secret.txt", "real/../../outside"),
    ("absolute", "{out}/secret.txt", "{out}/sub"),
    ("absolute-etc-passwd", "/etc/passwd", "/etc"),
    ("tilde", "~/secret.txt", "~/sub"),
    ("tilde-bare", "~", "~"),
    ("sibling-prefix", "{sibling}/secret.txt", "{sibling}/sub"),
    ("sibling-prefix-relative", "../ws2/secret.txt", "../ws2"),
    ("symlink-final", "file_link", "dir_link"),
    ("symlinked-parent", "dir_link/secret.txt", "dir_link/sub"),
    ("symlinked-nested-parent", "real/nested_link/secret.txt", "real/nested_link"),
    ("symlinked-parent-new-file", "dir_link/new.txt", "dir_link/sub"),
]
FOLDER_TOOLS = {"list_dir", "search_text"}


@pytest.mark.parametrize("tool", FILE_TOOLS)
@pytest.mark.parametrize(
    ("file_path", "folder_path"),
    [pytest.param(f, d, id=name) for name, f, d in ATTACKS],
)
async def test_path_attack_is_refused(
    layout: Layout, tool: str, file_path: str, folder_path: str
) -> None:
    template = folder_path if tool in FOLDER_TOOLS else file_path
    path = template.format(out=layout.outside, sibling=layout.sibling)
    if tool in FOLDER_TOOLS and "{sibling}" in template:
        # The string prefix trap: "/.../ws2" starts with "/.../ws".
        assert path.startswith(str(layout.ws))
    before = layout.fingerprint()
    output = await call(REGISTRY, layout.ctx, tool, arguments(tool, path))
    assert output.is_error, output
    assert SECRET not in output.text
    assert "root:" not in output.text  # /etc/passwd
    assert layout.fingerprint() == before


@pytest.mark.parametrize("tool", FILE_TOOLS)
async def test_ordinary_paths_still_work(layout: Layout, tool: str) -> None:
    """The control: the same tools on a file inside do what they are for."""
    (layout.ws / "real" / "s.txt").write_text("SECRET in the workspace\n")
    path = "real" if tool in FOLDER_TOOLS else "real/s.txt"
    output = await call(REGISTRY, layout.ctx, tool, arguments(tool, path))
    assert not output.is_error, output


# A symlink swapped in after the sandbox check: the check passed on a real file or folder, then
# (say, a command left running in the background) it became a link out. The open must refuse.


def swap_after_check(
    monkeypatch: pytest.MonkeyPatch, module: Any, swap: Callable[[], None]
) -> list[str]:
    """Make ``module``'s sandbox check do its real work, then run ``swap`` once."""
    real = module.resolve_in_workspace
    seen: list[str] = []

    def checked_then_swapped(path: str, ctx: ToolContext, **kwargs: Any) -> Path:
        resolved: Path = real(path, ctx, **kwargs)
        if not seen and (kwargs.get("for_write") or module is not write_file):
            seen.append(path)
            swap()
        return resolved

    monkeypatch.setattr(module, "resolve_in_workspace", checked_then_swapped)
    return seen


def replace_with_link(path: Path, target: Path) -> Callable[[], None]:
    def swap() -> None:
        path.rename(path.with_name(path.name + ".moved"))
        os.symlink(target, path)

    return swap


MODULES = {
    "read_file": read_file,
    "list_dir": list_dir,
    "search_text": search_text,
    "write_file": write_file,
    "edit_file": edit_file,
}


@pytest.mark.parametrize("tool", FILE_TOOLS)
@pytest.mark.parametrize("swapped", ["final-component", "parent-folder"])
async def test_symlink_swapped_in_after_the_check_is_not_followed(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, tool: str, swapped: str
) -> None:
    real = layout.ws / "real"
    (real / "sub").mkdir()
    (real / "sub" / "secret.txt").write_text("SECRET-looking but inside\n")
    (real / "secret.txt").write_text("SECRET-looking but inside\n")
    if swapped == "parent-folder":
        path = "real/sub" if tool in FOLDER_TOOLS else "real/secret.txt"
        swap = replace_with_link(real, layout.outside)
    elif tool in FOLDER_TOOLS:
        path, swap = "real/sub", replace_with_link(real / "sub", layout.outside / "sub")
    else:
        path = "real/secret.txt"
        swap = replace_with_link(real / "secret.txt", layout.outside / "secret.txt")
    seen = swap_after_check(monkeypatch, MODULES[tool], swap)
    before = layout.fingerprint()
    output = await call(REGISTRY, layout.ctx, tool, arguments(tool, path))
    assert seen == [path], "the swap never happened"
    assert SECRET not in output.text, output
    assert layout.fingerprint() == before
    if tool != "write_file":
        # write_file may replace the link itself with a new file; nothing else may succeed.
        assert output.is_error or "no matches" in output.text, output


# A hard link is the outside file under an inside name: no path check can see where else it is.
LINK_TOOLS = ["read_file", "search_text", "write_file", "edit_file"]


def hard_link_out(layout: Layout, name: str = "hard.txt") -> Path:
    link = layout.ws / "real" / name
    os.link(layout.outside / "secret.txt", link)
    return link


@pytest.mark.parametrize("tool", LINK_TOOLS)
async def test_a_hard_link_to_a_file_outside_is_neither_read_nor_changed(
    layout: Layout, tool: str
) -> None:
    link = hard_link_out(layout)
    before = layout.fingerprint()
    output = await call(REGISTRY, layout.ctx, tool, arguments(tool, "real/hard.txt"))
    assert SECRET not in output.text, output
    assert output.is_error or tool == "search_text", output
    assert "hard links" in output.text, output
    assert layout.fingerprint() == before
    assert link.read_text() == f"{SECRET}\n" and link.stat().st_nlink == 2  # left as it was


async def test_a_whole_workspace_search_skips_hard_links_with_a_note(layout: Layout) -> None:
    hard_link_out(layout)
    (layout.ws / "real" / "own.txt").write_text("a SECRET of the workspace's own\n")
    output = await call(REGISTRY, layout.ctx, "search_text", '{"pattern": "SECRET"}')
    assert output.text.splitlines() == [
        "real/own.txt:1: a SECRET of the workspace's own",
        "[search_text: 1 files with several hard links skipped: another of their names may be "
        "outside the workspace]",
    ]


@pytest.mark.parametrize("tool", ["read_file", "edit_file"])
async def test_a_hard_link_swapped_in_after_the_check_is_refused(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    inside = layout.ws / "real" / "secret.txt"
    inside.write_text("SECRET-looking but inside\n")

    def swap() -> None:
        inside.unlink()
        os.link(layout.outside / "secret.txt", inside)

    seen = swap_after_check(monkeypatch, MODULES[tool], swap)
    before = layout.fingerprint()
    output = await call(REGISTRY, layout.ctx, tool, arguments(tool, "real/secret.txt"))
    assert seen == ["real/secret.txt"], "the swap never happened"
    assert output.is_error and "hard links" in output.text, output
    assert SECRET not in output.text
    assert layout.fingerprint() == before


# The app's own folders: refused even when they lie inside the workspace.


class AppHome:
    """The user's home as the workspace, the app's folders wherever XDG puts them."""

    def __init__(self, root: Path, layout: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ws = root / "home"
        self.ws.mkdir()
        monkeypatch.setenv("HOME", str(self.ws))
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            monkeypatch.delenv(name, raising=False)
        if layout == "xdg-inside-workspace":
            monkeypatch.setenv("XDG_CONFIG_HOME", str(self.ws / "project" / ".cfg"))
            monkeypatch.setenv("XDG_DATA_HOME", str(self.ws / "project" / ".data"))
        elif layout == "xdg-through-a-symlink":
            # XDG names the folders through a link; the model names them by the real path.
            (self.ws / ".hidden").mkdir()
            os.symlink(self.ws / ".hidden", self.ws / "linked")
            monkeypatch.setenv("XDG_CONFIG_HOME", str(self.ws / "linked" / "cfg"))
            monkeypatch.setenv("XDG_DATA_HOME", str(self.ws / "linked" / "data"))
        # What the host hands the tools (wiring/host.py), computed from the environment above.
        config, data, _ = protected_dirs()
        self.config = config / "config.toml"
        self.session = data / "sessions" / "0001-session.jsonl"
        self.config.parent.mkdir(parents=True)
        self.session.parent.mkdir(parents=True)
        self.config.write_text('api_key_env = "X"  # SECRET config\n')
        self.session.write_text('{"type": "header", "note": "SECRET session"}\n')
        self.ctx = ToolContext(workspace=self.ws.resolve(), protected=protected_dirs())

    def relative(self, path: Path) -> str:
        return os.path.relpath(os.path.realpath(path), os.path.realpath(self.ws))

    def snapshot(self) -> dict[str, bytes]:
        found = {}
        for folder in protected_dirs():
            for path in sorted(Path(os.path.realpath(folder)).rglob("*")):
                found[str(path)] = path.read_bytes() if path.is_file() else b"<dir>"
        return found


APP_LAYOUTS = ["workspace-is-home", "xdg-inside-workspace", "xdg-through-a-symlink"]


def app_targets(home: AppHome) -> Iterator[tuple[str, str]]:
    """(what, path) for each way to name the app's files from the workspace."""
    yield "config-file", home.relative(home.config)
    yield "session-file", home.relative(home.session)
    yield "new-session-file", home.relative(home.session.with_name("evil.jsonl"))
    yield "new-config-folder", home.relative(home.config.parent / "themes" / "x.toml")
    yield "absolute-config-file", str(home.config)


@pytest.mark.parametrize("tool", FILE_TOOLS)
@pytest.mark.parametrize("app_layout", APP_LAYOUTS)
async def test_writes_to_the_apps_config_and_session_folders_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, app_layout: str
) -> None:
    home = AppHome(tmp_path, app_layout, monkeypatch)
    assert home.config.resolve().is_relative_to(home.ws.resolve())  # inside the workspace
    before = home.snapshot()
    for what, path in app_targets(home):
        if tool in FOLDER_TOOLS:
            path = os.path.dirname(path)
        output: ToolOutput = await call(REGISTRY, home.ctx, tool, arguments(tool, path))
        assert output.is_error, (what, output)
        assert "app's own files" in output.text, (what, output)
        assert "SECRET" not in output.text
    assert home.snapshot() == before


async def test_the_apps_folders_are_hidden_from_a_whole_workspace_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = AppHome(tmp_path, "workspace-is-home", monkeypatch)
    (home.ws / "notes.txt").write_text("a SECRET of the user's own\n")
    output = await call(REGISTRY, home.ctx, "search_text", '{"pattern": "SECRET"}')
    assert output.text == "notes.txt:1: a SECRET of the user's own"
    listing = await call(REGISTRY, home.ctx, "list_dir", '{"path": ".config"}')
    assert listing.text == "tui-agent/ (the app's own files; not accessible)"
