"""resolve_in_workspace, the sandbox's check, with its exact messages; ordinary paths inside
the workspace are accepted. Every tool against every path attack: tests/hostile/test_sandbox_*."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_agent.tools import SandboxError, ToolContext, builtin_registry, resolve_in_workspace
from tui_agent.tools.sandbox import MissingParentError

from .tools_helpers import make_context

REGISTRY = builtin_registry()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    context = make_context(tmp_path, protected=(tmp_path / "ws" / ".app",))
    ws = context.workspace
    (ws / "a.txt").write_text("inside\n")
    (ws / "sub").mkdir()
    (ws / "sub" / "b.txt").write_text("deeper\n")
    (ws / ".app").mkdir()
    (ws / ".app" / "config.toml").write_text("api_key = 'x'\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    (tmp_path / "outside_dir").mkdir()
    (tmp_path / "outside_dir" / "c.txt").write_text("secret\n")
    (tmp_path / "ws2").mkdir()
    (tmp_path / "ws2" / "d.txt").write_text("sibling\n")
    os.symlink(tmp_path / "outside.txt", ws / "file_link")
    os.symlink(tmp_path / "outside_dir", ws / "dir_link")
    os.symlink(ws / "a.txt", ws / "inner_link")
    os.symlink(ws / ".app", ws / "app_link")
    os.symlink(ws / "missing-target", ws / "dangling")
    return context


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../outside.txt", "is outside the workspace"),
        ("sub/../../outside.txt", "is outside the workspace"),
        ("..", "is outside the workspace"),
        ("../ws2/d.txt", "is outside the workspace"),
        ("~", "starts with '~'"),
        ("~/a.txt", "starts with '~'"),
        ("~root/x", "starts with '~'"),
        ("file_link", "leads outside the workspace through a symlink"),
        ("dir_link", "leads outside the workspace through a symlink"),
        ("dir_link/c.txt", "leads outside the workspace through a symlink"),
        (".app/config.toml", "app's own files"),
        (".app", "app's own files"),
        ("app_link/config.toml", "app's own files"),
        ("", "path is empty"),
        ("a\0b", "NUL character"),
    ],
)
def test_escapes_are_refused_for_reading(ctx: ToolContext, path: str, message: str) -> None:
    with pytest.raises(SandboxError, match=message):
        resolve_in_workspace(path, ctx)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../new.txt", "is outside the workspace"),
        ("file_link", "is a symbolic link"),
        ("inner_link", "is a symbolic link"),
        ("dangling", "is a symbolic link"),
        ("dir_link/new.txt", "leads outside the workspace through a symlink"),
        (".app/new.toml", "app's own files"),
        (".app", "app's own files"),
        ("sub/", "does not name a file"),
        (".", "does not name a file"),
        ("sub/..", "does not name a file"),
    ],
)
def test_escapes_are_refused_for_writing(ctx: ToolContext, path: str, message: str) -> None:
    with pytest.raises(SandboxError, match=message):
        resolve_in_workspace(path, ctx, for_write=True)


def test_missing_parent_for_writing_is_its_own_error(ctx: ToolContext) -> None:
    with pytest.raises(MissingParentError, match="does not exist"):
        resolve_in_workspace("new_dir/x.txt", ctx, for_write=True)


def test_ordinary_paths_are_accepted(ctx: ToolContext) -> None:
    ws = ctx.workspace
    assert resolve_in_workspace("a.txt", ctx) == ws / "a.txt"
    assert resolve_in_workspace("./sub/b.txt", ctx) == ws / "sub" / "b.txt"
    assert resolve_in_workspace("sub/../a.txt", ctx) == ws / "a.txt"
    assert resolve_in_workspace(".", ctx) == ws
    assert resolve_in_workspace(str(ws / "sub" / "b.txt"), ctx) == ws / "sub" / "b.txt"
    assert resolve_in_workspace("inner_link", ctx) == ws / "a.txt"
    assert resolve_in_workspace("not-yet.txt", ctx) == ws / "not-yet.txt"
    assert resolve_in_workspace("sub/new.txt", ctx, for_write=True) == ws / "sub" / "new.txt"
    assert resolve_in_workspace("a.txt", ctx, for_write=True) == ws / "a.txt"
    assert resolve_in_workspace(".app-not-protected", ctx) == ws / ".app-not-protected"
