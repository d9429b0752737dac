"""read_file, list_dir, write_file and edit_file on real files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tui_agent.tools import ToolContext, ToolOutput, builtin_registry
from tui_agent.tools.builtin.list_dir import MAX_ENTRIES
from tui_agent.tools.builtin.read_file import MAX_OUTPUT_BYTES

from .tools_helpers import call, make_context

REGISTRY = builtin_registry()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


async def use(ctx: ToolContext, name: str, **arguments: object) -> ToolOutput:
    return await call(REGISTRY, ctx, name, json.dumps(arguments))


# read_file


async def test_read_whole_file_exactly(ctx: ToolContext) -> None:
    (ctx.workspace / "a.txt").write_bytes(b"one\r\ntwo\nthree")
    assert await use(ctx, "read_file", path="a.txt") == ToolOutput("one\r\ntwo\nthree")


async def test_read_with_offset_and_limit_says_where_to_continue(ctx: ToolContext) -> None:
    (ctx.workspace / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    output = await use(ctx, "read_file", path="a.txt", offset=2, limit=3)
    assert output.text == (
        "line 3\nline 4\nline 5\n[read_file: showed lines 3-5; more remain, continue with offset=5]"
    )
    assert (await use(ctx, "read_file", path="a.txt", offset=8)).text == "line 9\nline 10\n"
    assert (await use(ctx, "read_file", path="a.txt", offset=7, limit=3)).text == (
        "line 8\nline 9\nline 10\n"
    )


async def test_read_offset_past_the_end_and_empty_file(ctx: ToolContext) -> None:
    (ctx.workspace / "a.txt").write_text("x\ny")
    past = await use(ctx, "read_file", path="a.txt", offset=5)
    assert past.text == "[read_file: a.txt has 2 lines; nothing at offset 5]"
    assert (await use(ctx, "read_file", path="a.txt", offset=2)).text.startswith("[read_file:")
    (ctx.workspace / "empty.txt").write_text("")
    assert (await use(ctx, "read_file", path="empty.txt")).text == "[read_file: empty.txt is empty]"


async def test_read_large_file_stops_at_the_budget_with_a_note(ctx: ToolContext) -> None:
    line = "x" * 99 + "\n"
    (ctx.workspace / "big.txt").write_text(line * 10_000)  # ~1 MB
    output = await use(ctx, "read_file", path="big.txt")
    shown = MAX_OUTPUT_BYTES // len(line)
    body, note = output.text.rsplit("\n[", 1)
    assert len(body.encode()) <= MAX_OUTPUT_BYTES
    assert body.count("\n") == shown - 1
    assert note == f"read_file: showed lines 1-{shown}; more remain, continue with offset={shown}]"
    rest = await use(ctx, "read_file", path="big.txt", offset=9_999)
    assert rest.text == line


async def test_read_one_enormous_line_shows_its_start(ctx: ToolContext) -> None:
    (ctx.workspace / "min.js").write_text("y" * (MAX_OUTPUT_BYTES * 3) + "\nnext\n")
    output = await use(ctx, "read_file", path="min.js")
    assert output.text.startswith("y" * 1000)
    assert len(output.text) < MAX_OUTPUT_BYTES + 300
    assert "line 1 is longer than 256 KB; only its start is shown" in output.text
    assert output.text.endswith("continue with offset=1]")
    assert (await use(ctx, "read_file", path="min.js", offset=1)).text == "next\n"


async def test_read_refuses_binary_missing_directory_and_fifo(ctx: ToolContext) -> None:
    (ctx.workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))
    (ctx.workspace / "blob.bin").write_bytes(b"\0\1\2" + bytes(range(256)))
    (ctx.workspace / "folder").mkdir()
    os.mkfifo(ctx.workspace / "pipe")
    cases = {
        # Sniffed as a PNG, decoded, found corrupt: nothing of it is sent (images/).
        "image.png": "image.png is not an image that can be read; read_file sent nothing of it",
        "blob.bin": "blob.bin looks like a binary file; read_file only shows text",
        "missing.txt": "missing.txt: no such file",
        "folder": "folder is a directory",
        "pipe": "pipe is not a regular file",
    }
    for path, message in cases.items():
        assert await use(ctx, "read_file", path=path) == ToolOutput(message, is_error=True)


async def test_read_invalid_utf8_text_is_shown_with_replacements(ctx: ToolContext) -> None:
    (ctx.workspace / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    assert (await use(ctx, "read_file", path="latin1.txt")).text == "caf\ufffd\n"


# list_dir


async def test_list_dir_sorted_with_marks(ctx: ToolContext, tmp_path: Path) -> None:
    ws = ctx.workspace
    (ws / "b.txt").write_text("")
    (ws / "A.md").write_text("")
    (ws / "src").mkdir()
    os.symlink("b.txt", ws / "link")
    os.symlink(tmp_path, ws / "out")
    output = await use(ctx, "list_dir", path=".")
    assert output.text == f"A.md\nb.txt\nlink@ -> b.txt\nout@ -> {tmp_path}\nsrc/"


async def test_list_dir_caps_long_listings(ctx: ToolContext) -> None:
    folder = ctx.workspace / "many"
    folder.mkdir()
    for n in range(MAX_ENTRIES + 5):
        (folder / f"f{n:05d}").write_text("")
    lines = (await use(ctx, "list_dir", path="many")).text.splitlines()
    assert lines[0] == "f00000"
    assert lines[MAX_ENTRIES - 1] == f"f{MAX_ENTRIES - 1:05d}"
    assert (
        lines[-1]
        == f"[list_dir: showing the first {MAX_ENTRIES} of {MAX_ENTRIES + 5} entries by name]"
    )


async def test_list_dir_empty_missing_file_and_protected(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, protected=(tmp_path / "ws" / ".app",))
    (ctx.workspace / "empty").mkdir()
    (ctx.workspace / ".app").mkdir()
    (ctx.workspace / "f.txt").write_text("")
    assert (await use(ctx, "list_dir", path="empty")).text == "[list_dir: empty is empty]"
    missing = await use(ctx, "list_dir", path="nope")
    assert missing == ToolOutput("nope: no such directory", is_error=True)
    assert (await use(ctx, "list_dir", path="f.txt")).is_error
    listing = (await use(ctx, "list_dir", path=".")).text
    assert listing.splitlines()[0] == ".app/ (the app's own files; not accessible)"


# write_file


async def test_write_creates_folders_and_replaces_atomically(ctx: ToolContext) -> None:
    ws = ctx.workspace
    created = await use(ctx, "write_file", path="deep/er/new.txt", content="héllo\n")
    assert created == ToolOutput(
        "created deep/er/new.txt (and its missing folders): 7 bytes written"
    )
    assert (ws / "deep/er/new.txt").read_text() == "héllo\n"
    (ws / "run.sh").write_text("old")
    (ws / "run.sh").chmod(0o750)
    replaced = await use(ctx, "write_file", path="run.sh", content="")
    assert replaced.text == "replaced run.sh: 0 bytes written"
    assert (ws / "run.sh").read_text() == ""
    assert stat.S_IMODE((ws / "run.sh").stat().st_mode) == 0o750
    assert sorted(p.name for p in ws.iterdir()) == ["deep", "run.sh"]  # no temporary files


async def test_write_refuses_directories_and_files_in_the_way(ctx: ToolContext) -> None:
    (ctx.workspace / "dir").mkdir()
    (ctx.workspace / "file.txt").write_text("keep")
    assert (await use(ctx, "write_file", path="dir", content="x")).is_error
    blocked = await use(ctx, "write_file", path="file.txt/inner.txt", content="x")
    assert blocked.is_error
    assert (ctx.workspace / "file.txt").read_text() == "keep"


# edit_file


async def test_edit_replaces_the_one_occurrence(ctx: ToolContext) -> None:
    path = ctx.workspace / "code.py"
    path.write_text("def f():\n    return 1\n")
    path.chmod(0o640)
    output = await use(ctx, "edit_file", path="code.py", old="return 1", new="return 2")
    assert output == ToolOutput("edited code.py at line 2: now 22 bytes")
    assert path.read_text() == "def f():\n    return 2\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.parametrize(
    ("content", "old", "message"),
    [
        ("abc\n", "xyz", "old text not found in f.txt; nothing was changed"),
        ("x = 1\nx = 1\n", "x = 1", "old text occurs 2 times in f.txt"),
        ("aaa", "aa", "old text occurs 2 times in f.txt"),
        ("z" * 500, "z", "old text occurs at least 100 times in f.txt"),
        ("a\r\nb\r\n", "a\nb", "old text not found in f.txt (the file uses CRLF line endings)"),
        ("same", "same", "old and new are the same"),
    ],
)
async def test_edit_refuses_unless_exactly_one_match(
    ctx: ToolContext, content: str, old: str, message: str
) -> None:
    path = ctx.workspace / "f.txt"
    path.write_bytes(content.encode())
    new = "same" if old == "same" else "NEW"
    output = await use(ctx, "edit_file", path="f.txt", old=old, new=new)
    assert output.is_error
    assert message in output.text
    assert path.read_bytes() == content.encode()


async def test_edit_refuses_binary_non_utf8_and_missing(ctx: ToolContext) -> None:
    (ctx.workspace / "bin").write_bytes(b"ab\0cd")
    (ctx.workspace / "latin1.txt").write_bytes("café".encode("latin-1"))
    binary = await use(ctx, "edit_file", path="bin", old="ab", new="x")
    assert binary == ToolOutput("bin looks like a binary file; edit_file only edits text", True)
    latin = await use(ctx, "edit_file", path="latin1.txt", old="caf", new="x")
    assert latin == ToolOutput("latin1.txt is not valid UTF-8; refusing to edit it", True)
    missing = await use(ctx, "edit_file", path="nope.txt", old="a", new="b")
    assert missing == ToolOutput("nope.txt: no such file", True)
    assert (ctx.workspace / "latin1.txt").read_bytes() == "café".encode("latin-1")
