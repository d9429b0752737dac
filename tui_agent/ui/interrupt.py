"""Ctrl+C that means stop (when no text is selected: a selection is copied, as before).

While the agent works (a stream, a running tool, a question waiting), it does what Esc does:
the stream is stopped, the tool killed. Idle with text in the message box, it clears the box.
Idle with the box empty, it says so, and a second Ctrl+C within ``QUIT_WINDOW_S`` quits the
app the way Ctrl+Q does (the session closed, nothing left running).

The app binds ``ctrl+c`` below the message box's and the screen's own copy bindings, which give
way when nothing is selected; so this only ever sees a Ctrl+C that would not copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from .shell import Shell

QUIT_WINDOW_S = 2.0
QUIT_HINT = "press Ctrl+C again to quit"


def interrupt(app: Shell) -> None:
    """One Ctrl+C that did not copy a selection."""
    now = app.clock.now()
    if app.busy:
        app.interrupted_at = None
        app.action_stop()
        return
    prompts = app.screen.query(PromptInput)
    if prompts and prompts.first().text:
        app.interrupted_at = None
        prompts.first().clear()
        return
    before = app.interrupted_at
    if before is not None and now - before <= QUIT_WINDOW_S:
        app.interrupted_at = None
        app.run_worker(app.action_quit(), group="quit", exclusive=True)
        return
    app.interrupted_at = now
    app.notify(QUIT_HINT, timeout=QUIT_WINDOW_S)
