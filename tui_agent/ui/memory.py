"""Memory from the message box: the person's typed message starting with ``# `` is not sent but
saved, after the dialog (``screens/memory_dialog``), as a line of an AGENTS.md
(``wiring/memory``); Esc puts the text back in the box. ``/memory`` opens the AGENTS.md files
in $VISUAL or $EDITOR (as Ctrl+G does) and sends what they say from the next request on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from .shell import Shell


def ask_memory(app: Shell, text: str) -> bool:
    """Whether ``text`` (typed by the person) was a memory: then the dialog is open."""
    from ..wiring.memory import USER, WORKSPACE, MemoryError_, memory_line, user_agents_file
    from ..wiring.workspace_content import AGENTS_FILE
    from .screens.memory_dialog import MemoryDialog
    from .widgets.transcript import Transcript

    line = memory_line(text)
    host = app.host
    if line is None or host is None:
        return False
    files = {WORKSPACE: host.workspace / AGENTS_FILE, USER: user_agents_file()}

    def chosen(target: str | None) -> None:
        prompt = app.query_one(PromptInput)
        if target is None or app.host is None:
            prompt.restore(text)
            prompt.focus()
            return
        try:
            done = app.host.remember(target, line)
        except MemoryError_ as exc:
            app.notify(str(exc), severity="error", markup=False)
            prompt.restore(text)
            return
        app.query_one(Transcript).add_notice(done, "info")
        prompt.focus()

    app.push_screen(MemoryDialog(line, files), chosen)
    return True


def edit_memory(app: Shell) -> None:
    """/memory: the workspace's AGENTS.md and the person's own, in $VISUAL or $EDITOR."""
    import os
    import shlex

    from ..wiring.memory import user_agents_file
    from ..wiring.workspace_content import AGENTS_FILE
    from .prompt_keys import run_editor

    host = app.host
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if host is None:
        return
    if not editor:
        app.notify("set $VISUAL or $EDITOR to edit AGENTS.md in your editor", severity="warning")
        return
    try:
        command = shlex.split(editor)
    except ValueError:
        app.notify("$VISUAL or $EDITOR cannot be read as a command", severity="warning")
        return
    mine = user_agents_file()
    mine.parent.mkdir(parents=True, exist_ok=True)
    kept = host.edited_memory_begins()
    if run_editor(app, [*command, str(host.workspace / AGENTS_FILE), str(mine)]):
        host.edited_memory_ends(kept)
