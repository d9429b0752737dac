"""What the approval prompt shows for a call: JSON, the exact command, or a diff of the file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tui_agent.tools.spec import ToolContext
from tui_agent.ui.call_preview import build_preview, editable_arguments, json_text
from tui_agent.ui.file_change import edit_change, unified_diff, write_change
from tui_agent.ui.sanitize import ESCAPE_STYLE, is_hidden


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("one\ntwo\nthree\n")
    return ToolContext(workspace=workspace.resolve())


def test_write_diffs_against_the_current_file(ctx: ToolContext) -> None:
    change = write_change("notes.txt", "one\n2\nthree\n", ctx)
    assert change.diff is not None
    assert change.diff.splitlines() == [
        "--- a/notes.txt",
        "+++ b/notes.txt",
        "@@ -1,3 +1,3 @@",
        " one",
        "-two",
        "+2",
        " three",
    ]
    assert change.notes == ()


def test_a_new_file_diffs_against_empty(ctx: ToolContext) -> None:
    change = write_change("sub/new.txt", "hello\nworld", ctx)
    assert change.diff is not None
    assert change.diff.splitlines() == [
        "--- /dev/null",
        "+++ b/sub/new.txt",
        "@@ -0,0 +1,2 @@",
        "+hello",
        "+world",
        "\\ No newline at end of file",
    ]
    assert change.notes == ("new file sub/new.txt",)


def test_lines_split_only_at_newline(ctx: ToolContext) -> None:
    change = write_change("notes.txt", "one\x1c\rtwo\u2028\nthree\n", ctx)
    assert change.diff is not None
    assert "+one\x1c\rtwo\u2028" in change.diff.split("\n")


def test_unreadable_files_are_named_and_the_content_shown(ctx: ToolContext) -> None:
    (ctx.workspace / "blob.bin").write_bytes(b"\x00\x01binary")
    change = write_change("blob.bin", "text now", ctx)
    assert change.diff is None
    assert change.content == "text now"
    assert change.notes[0] == "cannot show a diff: blob.bin looks like a binary file"
    outside = write_change("../escape.txt", "x", ctx)
    assert outside.diff is None
    assert "outside the workspace" in outside.notes[0]
    assert str(ctx.workspace) not in " ".join(outside.notes)


def test_a_fifo_is_not_opened(ctx: ToolContext) -> None:
    os.mkfifo(ctx.workspace / "pipe")
    change = write_change("pipe", "x", ctx)
    assert change.notes[0] == "cannot show a diff: pipe is not a regular file"


def test_unreadable_by_permission(ctx: ToolContext) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = ctx.workspace / "secret.txt"
    path.write_text("x")
    path.chmod(0)
    change = write_change("secret.txt", "y", ctx)
    assert change.diff is None
    assert "Permission denied" in change.notes[0]


def test_identical_content_says_so(ctx: ToolContext) -> None:
    change = write_change("notes.txt", "one\ntwo\nthree\n", ctx)
    assert change.diff == ""
    assert change.notes == ("the file already has exactly this content",)


def test_edit_diffs_the_whole_file(ctx: ToolContext) -> None:
    change = edit_change("notes.txt", "two", "TWO", ctx)
    assert change.diff is not None
    assert "-two\n+TWO\n" in change.diff
    assert change.diff.startswith("--- a/notes.txt\n+++ b/notes.txt\n")


@pytest.mark.parametrize(
    ("path", "old", "note"),
    [
        ("notes.txt", "missing", "the old text is not found in notes.txt"),
        ("notes.txt", "t", "the old text occurs 2 times in notes.txt"),
        ("nope.txt", "x", "cannot show a diff: nope.txt: no such file"),
    ],
)
def test_edit_that_would_fail_shows_the_replaced_text(
    ctx: ToolContext, path: str, old: str, note: str
) -> None:
    change = edit_change(path, old, "NEW", ctx)
    assert change.notes[0].startswith(note)
    assert change.diff == unified_diff(old, "NEW", "old", "new")


def test_preview_kinds(ctx: ToolContext) -> None:
    command = build_preview("run_command", {"command": "ls  -la ", "timeout_s": 5}, ctx)
    assert command.kind == "command"
    assert command.body.plain.startswith("ls  -la \n\nwith {")
    assert command.notes == ("the command starts or ends with whitespace (kept exactly)",)
    diff = build_preview("write_file", {"path": "notes.txt", "content": "x\n"}, ctx)
    assert diff.kind == "diff"
    assert diff.heading.plain == "changes to notes.txt"
    plain = build_preview("read_file", {"path": "notes.txt"}, ctx)
    assert plain.kind == "json"
    assert json.loads(plain.body.plain) == {"path": "notes.txt"}


def test_json_shows_hidden_characters_and_control_escapes_apart() -> None:
    text = json_text({"a": "x\x1by\u202e", "b": "literal \\u001b"})
    plain = text.plain
    assert '"x\\u001by<U+202E>"' in plain
    escaped = {plain[span.start : span.end] for span in text.spans if span.style == ESCAPE_STYLE}
    assert escaped == {"\\u001b", "<U+202E>"}  # the escaped backslash is not a control


def test_editable_arguments_are_the_same_value_without_hidden_characters() -> None:
    arguments = {"text": "a\x1b\x7f\x9b\u202e\u200b\U000e0041\ud800z", "n": [1, "é"]}
    text = editable_arguments(arguments)
    assert not any(is_hidden(char) for char in text)
    assert json.loads(text) == arguments


def test_a_background_command_says_it_keeps_running(ctx: ToolContext) -> None:
    preview = build_preview("run_command", {"command": "serve", "background": True}, ctx)
    assert "IN THE BACKGROUND" in preview.heading.plain
    assert any("keeps running after this call" in note for note in preview.notes)
    plain = build_preview("run_command", {"command": "serve"}, ctx)
    assert "BACKGROUND" not in plain.heading.plain


def test_web_fetch_shows_the_exact_url_and_a_look_alike_host(ctx: ToolContext) -> None:
    preview = build_preview("web_fetch", {"url": "https://docs.example/a?b=1"}, ctx)
    assert preview.body.plain == "https://docs.example/a?b=1"
    assert preview.heading.plain == "URL, fetched exactly as shown"
    assert preview.notes == (
        "fetched by the app itself, not in the sandbox; no key or cookie is sent",
    )
    idn = build_preview("web_fetch", {"url": "https://bücher.example/"}, ctx)
    assert (
        idn.notes[0] == "the host is not plain ASCII: the network reads it as xn--bcher-kva.example"
    )
