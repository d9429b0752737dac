"""The app's entries in the command palette (Ctrl+P), after Textual's own.

Each runs an action of the app or of a view (context, MCP, sandbox), so the palette offers
nothing a key or a slash command cannot do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from .approval_mode import MODES

if TYPE_CHECKING:
    from .app import TuiAgentApp


def palette_commands(app: TuiAgentApp) -> Iterator[SystemCommand]:
    """Approval modes, the calls panel, rewind, sessions, copying, models and profiles, retry,
    then the context's, MCP's and the sandbox's commands."""
    from .rewind_action import open_rewind

    yield SystemCommand(
        "Approval mode: next",
        "Cycle ask / plan / auto read-only / auto all",
        app.action_cycle_mode,
    )
    yield SystemCommand(
        "Calls panel", "Show or hide this session's tool calls", app.action_toggle_calls
    )
    yield SystemCommand(
        "Rewind: to before one of your messages",
        "Undo what the agent did to your files and/or the conversation (F5)",
        app.action_rewind,
    )
    yield SystemCommand(
        "Rewind: undo the last rewind",
        "Put back the files the last rewind replaced",
        lambda: open_rewind(app, undo=True),
    )
    yield SystemCommand(
        "Sessions: browse",
        "Search, resume, rename, delete or fork saved sessions",
        app.action_browse_sessions,
    )
    from .new_session import new_session

    yield SystemCommand(
        "Sessions: new",
        "Start a new session in this workspace, with this profile and model (/new)",
        lambda: app.run_worker(new_session(app), group="slash-command"),
    )
    yield SystemCommand(
        "Approval: what is auto-approved",
        "List the mode and the rules; revoke one or save it to config.toml",
        app.action_approval_rules,
    )
    for mode in MODES:
        yield SystemCommand(
            f"Approval mode: {mode}",
            f"Switch the approval mode to {mode}",
            lambda mode=mode: app.set_approval_mode(mode),
        )
    yield SystemCommand(
        "Copy last code block",
        "Copy the last code block of the last answer (ctrl+k)",
        app.action_copy_code,
    )
    yield SystemCommand(
        "Model: choose",
        "Use another model of this profile from the next turn",
        app.action_choose_model,
    )
    if app.host is not None:
        names = [*app.host.config.profiles, "demo"]
        for name in names:
            yield SystemCommand(
                f"Profile: {name}",
                f"Use the {name} profile from the next turn",
                lambda name=name: app.switch_profile(name),
            )
    yield SystemCommand("Retry", "Send the unanswered message again", app.action_retry)
    from .context_view import context_commands

    yield from context_commands(app)
    from .mcp_view import mcp_commands

    yield from mcp_commands(app)
    from .sandbox_view import sandbox_commands

    yield from sandbox_commands(app)
    yield SystemCommand(
        "Copy last answer", "Copy the last answer to the clipboard", app.action_copy_answer
    )
