"""The approval prompt with a real Textual app: keys, arming, focus, inputs, display, scrolling."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static, TextArea

from tui_agent.approval import (
    AllowCommand,
    AllowCommandPrefix,
    AllowTool,
    Decision,
    approve,
    cancel,
    deny,
    edit,
)
from tui_agent.ui.call_preview import editable_arguments
from tui_agent.ui.widgets.approval_keys import KeyHints
from tui_agent.ui.widgets.approval_prompt import ApprovalPrompt
from tui_agent.ui.widgets.folded_text import FoldedText

from .approval_prompt_app import (
    PromptApp,
    confirm_edit,
    make_request,
    screen_rows,
    screen_text,
    stray_controls,
    terminal_output,
    wait_until_armed,
)

SIZE = (120, 40)
READ = make_request("read_file", {"path": "src/app.py"}, position=1, total=2)
RUN = make_request("run_command", {"command": "ls -la src"})


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("line one\nline two\nline three\n")
    return root.resolve()


def _mode(prompt: ApprovalPrompt) -> str:
    return prompt.mode  # read afresh: mypy would keep the type narrowed by an earlier assert


def _type(text: str) -> list[str]:
    return ["space" if char == " " else char for char in text]


@pytest.mark.parametrize(
    ("request_", "keys", "expected"),
    [
        (READ, ["y"], approve()),
        (READ, ["t"], approve(remember=AllowTool("read_file"))),
        (RUN, ["t"], approve(remember=AllowCommand("ls -la src"))),
        (READ, ["A"], approve(approve_rest=True)),
        (READ, ["n"], deny()),
        (READ, ["escape"], cancel()),
        (READ, ["ctrl+c"], cancel()),
        (READ, ["r", *_type("not that file"), "enter"], deny("not that file")),
        (READ, ["r", "enter"], deny()),
        (READ, ["r", "x", "escape", "y"], approve()),  # Esc backs out of the reason
        (READ, ["r", "x", "ctrl+c", "n"], deny()),  # and so does Ctrl+C (not copy)
        (READ, ["e", "ctrl+c", "escape"], cancel()),
        (RUN, ["p", "enter"], approve(remember=AllowCommandPrefix(("ls",)))),
    ],
)
@pytest.mark.heavy
async def test_each_key_gives_its_decision(
    workspace: Path, request_: Any, keys: list[str], expected: Decision
) -> None:
    app = PromptApp(request_, workspace)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.prompt
        await wait_until_armed(pilot, prompt)
        await pilot.press(*keys)
        assert app.decisions == [expected]
        assert app.future is not None and app.future.result() == expected
        assert prompt.decision == expected
        assert prompt.disabled
        await pilot.press("n", "y", "escape")  # resolved exactly once
        assert app.decisions == [expected]


async def test_a_key_before_arming_does_nothing(workspace: Path) -> None:
    app = PromptApp(READ, workspace, arming_delay=60.0)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.prompt
        await pilot.press("y", "A", "t", "n", "escape", "enter", "ctrl+c")
        for _ in range(500):  # until the preview is shown (still not armed)
            if _mode(prompt) != "loading":
                break
            await pilot.pause(0.01)
        await pilot.press("y", "A", "t", "n", "escape", "enter", "ctrl+c")
        assert app.decisions == []
        assert not prompt.armed
        assert prompt.has_class("-arming")
        assert "…" in screen_text(app)
        assert app.future is not None and not app.future.done()


async def test_keys_work_once_the_delay_passed(workspace: Path) -> None:
    app = PromptApp(READ, workspace, arming_delay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.prompt
        await wait_until_armed(pilot, prompt)
        assert not prompt.has_class("-arming")
        await pilot.press("y")
        assert app.decisions == [approve()]


async def test_keys_are_ignored_without_focus(workspace: Path) -> None:
    app = PromptApp(READ, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        app.query_one("#elsewhere", Input).focus()
        await pilot.press("y", "n", "A", "escape")
        assert app.decisions == []
        assert app.query_one("#elsewhere", Input).value == "ynA"


@pytest.mark.heavy
async def test_edit_submits_the_edited_json(workspace: Path) -> None:
    app = PromptApp(READ, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("e")
        editor = app.query_one("#editor", TextArea)
        assert editor.text == editable_arguments(READ.arguments)
        assert app.focused is editor
        editor.text = '{"path": "src/other.py"}'
        await pilot.press("ctrl+s")
        assert app.decisions == []  # the diff is shown first
        await confirm_edit(pilot)
        assert app.decisions == [edit('{"path": "src/other.py"}')]


async def test_typing_in_the_editor_takes_letters_not_decisions(workspace: Path) -> None:
    app = PromptApp(READ, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("e", "ctrl+home", "y", "n", "A")
        editor = app.query_one("#editor", TextArea)
        assert editor.text.startswith("ynA{")
        assert app.decisions == []


@pytest.mark.parametrize(
    ("text", "error"),
    [("{not json", "not valid JSON"), ("[1, 2]", "must be one JSON object")],
)
async def test_invalid_json_stays_in_the_editor(workspace: Path, text: str, error: str) -> None:
    app = PromptApp(READ, workspace)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.prompt
        await wait_until_armed(pilot, prompt)
        await pilot.press("e")
        app.query_one("#editor", TextArea).text = text
        await pilot.press("ctrl+s")
        assert app.decisions == []
        assert prompt.mode == "edit"
        assert app.query_one("#editor", TextArea).text == text
        assert error in screen_text(app)
        await pilot.press("escape")  # back to the choice, editor gone
        assert _mode(prompt) == "choose"
        assert not app.query("#editor")
        await pilot.press("n")
        assert app.decisions == [deny()]


@pytest.mark.heavy
async def test_prefix_shows_the_rule_before_keeping_it(workspace: Path) -> None:
    app = PromptApp(RUN, workspace)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.prompt
        await wait_until_armed(pilot, prompt)
        await pilot.press("p")
        assert prompt.mode == "prefix"
        assert app.query_one("#prefix", Input).value == "ls"
        assert AllowCommandPrefix(("ls",)).describe() in screen_text(app)
        assert app.decisions == []
        await pilot.press("backspace", "backspace", *_type("git"))
        assert app.query_one("#prefix", Input).value == "git"
        assert "git runs programs named in the repository's own .git/config" in screen_text(app)
        await pilot.press("escape")  # backs out: nothing kept
        assert _mode(prompt) == "choose"
        assert app.decisions == []
        await pilot.press("p", *["backspace"] * 10, *_type("ls -l"), "enter")
        shown = screen_text(app)
        assert "keeps nothing: this command does not start with: ls -l" in shown
        assert shown.count("does not start with") == 1, shown  # the refusal is said once
        assert "not kept: change the prefix above" in shown
        assert app.decisions == []
        await pilot.press("backspace", *_type("la"), "enter")
        assert app.decisions == [approve(remember=AllowCommandPrefix(("ls", "-la")))]


@pytest.mark.parametrize(
    ("request_", "why"),
    [
        (make_request("run_command", {"command": "git pull && make"}), "shell operators"),
        (READ, "prefix rules are for run_command only"),
        (
            make_request("run_command", {"command": "bash -c 'touch a; touch b'"}),
            "bash is a shell: it runs the commands in its arguments",
        ),
        (
            make_request("run_command", {"command": "prlimit --nofile=64 sh -c 'touch a'"}),
            "prlimit runs the command given in its arguments",
        ),
        (
            make_request("run_command", {"command": "pytest -q tests"}),
            "pytest runs code from the project's own files",
        ),
        (
            make_request("run_command", {"command": "/usr/bin/ls -la"}),
            "a prefix rule names a program without a folder",
        ),
        (
            make_request("run_command", {"command": "find . -exec touch a {} +"}),
            "-exec makes find run a command",
        ),
    ],
)
async def test_prefix_is_refused_where_it_could_never_match(
    workspace: Path, request_: Any, why: str
) -> None:
    app = PromptApp(request_, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("p")
        assert app.prompt.mode == "choose"
        assert why in screen_text(app)
        assert app.decisions == []


async def test_run_command_is_shown_exactly(workspace: Path) -> None:
    command = "grep -rn 'a  b' src | sort -u > \"out file.txt\"; echo $HOME"
    app = PromptApp(
        make_request("run_command", {"command": command}, position=2, total=3), workspace
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        shown = screen_text(app)
        rows = screen_rows(app)
    assert command in rows
    assert "call 2 of 3  run_command  execute" in shown
    assert "always allow this exact command" in shown


async def test_a_long_command_is_folded_not_clipped(workspace: Path) -> None:
    command = "echo " + " ".join(f"word{number:03}" for number in range(80)) + "  "
    app = PromptApp(make_request("run_command", {"command": command}), workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        view = app.query_one("#arguments", FoldedText)
        rows = [view.render_line(y).text for y in range(view.size.height)]
    assert view.row_count > 3
    assert "".join(rows).startswith(command)


async def test_write_file_shows_a_diff_against_the_file(workspace: Path) -> None:
    arguments = {"path": "notes.txt", "content": "line one\nline 2\nline three\n"}
    app = PromptApp(make_request("write_file", arguments), workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        lines = screen_rows(app)
    start = lines.index("--- a/notes.txt")
    assert lines[start : start + 7] == [
        "--- a/notes.txt",
        "+++ b/notes.txt",
        "@@ -1,3 +1,3 @@",
        "line one",
        "-line two",
        "+line 2",
        "line three",
    ]
    assert "changes to notes.txt" in lines


HOSTILE_ARGUMENTS = {
    "path": "a\x1b]52;c;cm0gLXJmIH4=\x07b\x1b[2J\u202eexe.txt\u200b",
    "pattern": "[@click=app.quit]x[/] [link=https://e]y[/link]\x9b31m",
}


@pytest.mark.parametrize("tool", ["search_text", "run_command", "write_file"])
async def test_hostile_arguments_are_shown_visibly(workspace: Path, tool: str) -> None:
    if tool == "run_command":
        arguments = {"command": HOSTILE_ARGUMENTS["path"] + HOSTILE_ARGUMENTS["pattern"]}
    elif tool == "write_file":
        arguments = {"path": "new.txt", "content": HOSTILE_ARGUMENTS["path"]}
    else:
        arguments = HOSTILE_ARGUMENTS
    app = PromptApp(make_request(tool, arguments), workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        assert stray_controls(terminal_output(app)) == []
        svg = app.export_screenshot()
        shown = screen_text(app)
        assert app.is_running
    for char in "\x1b\x07\x9b\u202e\u200b":
        assert char not in svg
    assert "<U+202E>exe.txt<U+200B>" in shown
    if tool == "search_text":  # JSON keeps C0 as \u escapes; the rest appear as escapes
        assert "a\\u001b]52;c;cm0gLXJmIH4=\\u0007b\\u001b[2J" in shown
        assert "[@click=app.quit]x[/] [link=https://e]y[/link]\\x9b31m" in shown
    else:
        assert "a\\x1b]52;c;cm0gLXJmIH4=\\x07b\\x1b[2J" in shown


async def test_a_long_argument_scrolls_to_its_last_line(workspace: Path) -> None:
    content = "".join(f"row {number:03}\n" for number in range(1, 201))
    request = make_request("write_file", {"path": "long.txt", "content": content})
    app = PromptApp(request, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        view = app.query_one("#arguments", FoldedText)
        assert "+row 001" in screen_text(app)
        assert "+row 200" not in screen_text(app)
        assert view.max_scroll_y > 0
        await pilot.press("end")
        assert view.scroll_y == view.max_scroll_y
        assert "+row 200" in screen_text(app)
        await pilot.press("home", "pagedown", "down")
        assert 0 < view.scroll_y < view.max_scroll_y
        assert app.decisions == []


async def test_removing_an_undecided_prompt_cancels(workspace: Path) -> None:
    app = PromptApp(READ, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        await app.prompt.remove()
        assert app.future is not None and app.future.result() == cancel()


async def test_works_without_a_future(workspace: Path) -> None:
    app = PromptApp(READ, workspace, with_future=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        await pilot.press("y")
        assert app.decisions == [approve()]
        assert app.query_one(KeyHints).render().plain == "approved"


async def test_notes_show_why_a_diff_is_missing(workspace: Path) -> None:
    request = make_request("edit_file", {"path": "notes.txt", "old": "line", "new": "LINE"})
    app = PromptApp(request, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until_armed(pilot, app.prompt)
        notes = app.query_one("#notes", Static)
        assert not notes.has_class("-empty")
        assert "the old text occurs 3 times in notes.txt" in screen_text(app)


async def test_a_long_tool_name_and_its_risk_wrap_never_cut(workspace: Path) -> None:
    name = "mcp__someserver__" + "a_very_long_tool_name_" * 3 + "TAILNAME"
    app = PromptApp(make_request(name, {"x": 1}), workspace)
    async with app.run_test(size=(60, 24)) as pilot:
        await wait_until_armed(pilot, app.prompt)
        shown = "".join(screen_rows(app))
    assert "call 1 of 1" in shown and f"{name}  execute" in shown
