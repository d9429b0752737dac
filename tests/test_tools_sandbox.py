"""Every way out of the workspace is refused; ordinary paths inside it are accepted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_agent.tools import SandboxError, ToolContext, builtin_registry, resolve_in_workspace
from tui_agent.tools.sandbox import MissingParentError

from .tools_helpers import call, make_context

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


def test_absolute_paths_outside_and_sibling_prefixes_are_refused(
    ctx: ToolContext, tmp_path: Path
) -> None:
    for absolute in ["/etc/passwd", str(tmp_path / "outside.txt"), str(tmp_path / "ws2/d.txt")]:
        with pytest.raises(SandboxError, match="is outside the workspace"):
            resolve_in_workspace(absolute, ctx)
    # "/.../ws2" starts with the string "/.../ws" but is not inside it.
    assert str(tmp_path / "ws2").startswith(str(ctx.workspace))


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


def test_symlinked_parent_directory_pointing_out_is_refused(
    ctx: ToolContext, tmp_path: Path
) -> None:
    (ctx.workspace / "real").mkdir()
    os.symlink(tmp_path / "outside_dir", ctx.workspace / "real" / "nested_link")
    for for_write in (False, True):
        with pytest.raises(SandboxError, match="through a symlink"):
            resolve_in_workspace("real/nested_link/c.txt", ctx, for_write=for_write)


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


async def test_tools_report_refusals_as_error_results(ctx: ToolContext, tmp_path: Path) -> None:
    attempts = [
        ("read_file", '{"path": "file_link"}'),
        ("read_file", '{"path": "../outside.txt"}'),
        ("list_dir", '{"path": "dir_link"}'),
        ("search_text", '{"pattern": "secret", "path": "dir_link"}'),
        ("write_file", '{"path": "dir_link/evil.txt", "content": "x"}'),
        ("write_file", '{"path": "../evil.txt", "content": "x"}'),
        ("write_file", '{"path": "dir_link/new_dir/evil.txt", "content": "x"}'),
        ("write_file", '{"path": "../new_dir/evil.txt", "content": "x"}'),
        ("write_file", '{"path": "file_link", "content": "x"}'),
        ("edit_file", '{"path": "file_link", "old": "secret", "new": "x"}'),
        ("read_file", '{"path": ".app/config.toml"}'),
        ("write_file", '{"path": ".app/config.toml", "content": "x"}'),
    ]
    for name, arguments in attempts:
        output = await call(REGISTRY, ctx, name, arguments)
        assert output.is_error, (name, arguments, output)
        assert "path" in output.text
    assert (tmp_path / "outside.txt").read_text() == "secret\n"
    assert not (tmp_path / "evil.txt").exists()
    assert not (tmp_path / "outside_dir" / "evil.txt").exists()
    assert not (tmp_path / "outside_dir" / "new_dir").exists()
    assert not (tmp_path / "new_dir").exists()
    assert (ctx.workspace / ".app" / "config.toml").read_text() == "api_key = 'x'\n"


async def test_search_does_not_follow_symlinks_or_enter_protected_dirs(ctx: ToolContext) -> None:
    output = await call(REGISTRY, ctx, "search_text", '{"pattern": "secret|api_key|inside"}')
    assert output.text == "a.txt:1: inside"
