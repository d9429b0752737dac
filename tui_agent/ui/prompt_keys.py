"""Two keys of the message box: Ctrl+G edits the message in $VISUAL or $EDITOR (the app is
suspended meanwhile; the edited text comes back into the box), and Alt+R searches your
earlier messages of this workspace (``screens/history_search``)."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from .widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from .shell import Shell


def edit_in_editor(app: Shell) -> None:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        app.notify("set $VISUAL or $EDITOR to edit the message in your editor", severity="warning")
        return
    try:
        command = shlex.split(editor)
    except ValueError:
        app.notify("$VISUAL or $EDITOR cannot be read as a command", severity="warning")
        return
    prompt = app.query_one(PromptInput)
    fd, path = tempfile.mkstemp(prefix="tui-agent-message-", suffix=".md")  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(prompt.text)
        if not run_editor(app, [*command, path]):
            return
        with open(path, encoding="utf-8", errors="replace") as back:
            text = back.read()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    if text.endswith("\n") and not prompt.text.endswith("\n"):
        text = text[:-1]  # what editors add at the end of a file
    prompt.restore(text)
    prompt.focus()


def run_editor(app: Shell, argv: list[str]) -> bool:
    """Run the editor with the terminal handed over; False (and a notice) when it failed."""

    def run() -> int:
        return subprocess.run(argv, check=False).returncode

    try:
        try:
            with app.suspend():
                code = run()
        except SuspendNotSupported:
            if not app.is_headless:  # a browser tab (serve): no terminal to hand over
                app.notify("the external editor needs a terminal", severity="warning")
                return False
            code = run()  # tests: the editor is a script that needs no terminal
    except OSError as exc:
        app.notify(f"cannot start {argv[0]}: {exc.strerror}", severity="error", markup=False)
        return False
    if code != 0:
        app.notify(f"the editor exited with status {code}; the message is unchanged")
        return False
    return True


def search_history(app: Shell) -> None:
    from .screens.history_search import HistorySearch

    if app.host is None or app.host.store is None or isinstance(app.screen, HistorySearch):
        return

    def chosen(text: str | None) -> None:
        if text is not None:
            prompt = app.query_one(PromptInput)
            prompt.restore(text)
            prompt.focus()

    app.push_screen(HistorySearch(app.host.store, str(app.host.workspace)), chosen)
