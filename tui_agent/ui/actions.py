"""The app's actions: one table, from which the key bindings, the command palette (Ctrl+P), the
slash commands and /help are built.

Each row (``Action``) is one thing a person can do, declared once: its name (``/name`` in the
message box), the line /help shows, what it does (``action_runners.py``), its key, its palette
entries, how its arguments look and complete, and whether it waits for the session to open or
for the agent to be idle. That is checked here, once (``perform``), with one notice. A feature
module may declare its own rows (``session_actions.py``: the session's settings; ``jobs_view.py``,
``cost_view.py``); the table lists every row, in its order.

What the palette offers besides the table is Textual's own (theme, quit, keys, maximize,
screenshot; ``TEXTUAL_OWN``). The slash list adds the prompt templates (``slash_commands.py``).

Code elsewhere adds a command with one call (a later one of the same name replaces it)::

    from tui_agent.ui.actions import Action, add_action
    add_action(app, Action("plan-b", "plan it again", lambda app, arguments: ...))
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from textual.app import SystemCommand
from textual.binding import Binding

from . import action_runners as run
from . import cost_view, jobs_view, session_actions
from .approval_mode import MODES
from .shell import Action, Entry, Key, Shell
from .slash_commands import SlashCommand, Suggestion, templates_of
from .slash_commands import run_slash as _run_slash
from .slash_commands import suggestions as _suggestions


def _paste_image(app: Shell, arguments: str) -> None:
    from .mentions import paste_clipboard  # the clipboard's image: ui/mentions.py

    paste_clipboard(app)


def _help(app: Shell, arguments: str) -> None:
    from .widgets.transcript import Transcript

    lines = ["Commands (type / in the message box; Tab completes):"]
    for command in sorted(all_commands(app), key=lambda c: c.name):
        usage = f" {command.usage}" if command.usage else ""
        lines.append(f"  /{command.name}{usage} — {command.description}")
    app.query_one(Transcript).add_notice("\n".join(lines), "info")


# Rows with a key first, in the footer's order.
ACTIONS: tuple[Action, ...] = (
    Action("quit", "quit tui-agent (Ctrl+Q)", run.quit_app, Key("ctrl+q", "Quit", priority=True)),
    Action(
        "stop", "stop the stream or the running tools", run.stop, Key("escape", "Stop"), slash=False
    ),
    # Not priority: a selection (message box, screen) is copied first; see interrupt.py.
    Action(
        "interrupt",
        "stop, clear the box, or (twice) quit",
        run.interrupt,
        Key("ctrl+c", "Stop", show=False),
        slash=False,
    ),
    Action(
        "focus-queue",
        "to the queued messages",
        run.focus_queue,
        Key("alt+up", "Queued", show=False),
        slash=False,
    ),
    Action(
        "calls",
        "show or hide the calls panel (F2)",
        run.toggle_calls,
        Key("f2", "Calls"),
        (Entry("Calls panel", "Show or hide this session's tool calls"),),
    ),
    Action(
        "mode",
        "approval mode: ask, plan, auto-read, auto-all (F3)",
        run.mode,
        Key("f3", "Approval mode"),
        (
            Entry("Approval mode: next", "Cycle ask / plan / auto read-only / auto all"),
            *(Entry(f"Approval mode: {m}", f"Switch the approval mode to {m}", m) for m in MODES),
        ),
        usage="[MODE]",
        complete=run.modes,
        needs_session=True,
    ),
    Action(
        "retry",
        "send the unanswered message again (Ctrl+R)",
        run.retry,
        Key("ctrl+r", "Retry"),
        (Entry("Retry", "Send the unanswered message again"),),
        while_busy=False,
        needs_session=True,
    ),
    # priority: the message box (a TextArea) has focus nearly always and binds ctrl+y to redo.
    Action(
        "copy",
        "copy the last answer (Ctrl+Y)",
        run.copy_answer,
        Key("ctrl+y", "Copy answer", priority=True),
        (Entry("Copy last answer", "Copy the last answer to the clipboard"),),
    ),
    Action(
        "copy-code",
        "copy the last answer's last code block (Ctrl+K)",
        run.copy_code,
        Key("ctrl+k", "Copy code", show=False, priority=True),
        (Entry("Copy last code block", "Copy the last code block of the last answer (ctrl+k)"),),
    ),
    Action(
        "sessions",
        "browse, resume, rename, delete saved sessions (Ctrl+O)",
        run.sessions,
        Key("ctrl+o", "Sessions"),
        (Entry("Sessions: browse", "Search, resume, rename, delete or fork saved sessions"),),
    ),
    Action(
        "rules",
        "what is auto-approved; revoke or save rules (F4)",
        run.approval_rules,
        Key("f4", "Auto-approved"),
        (
            Entry(
                "Approval: what is auto-approved",
                "List the mode and the rules; revoke one or save it to config.toml",
            ),
        ),
        needs_session=True,
    ),
    Action(
        "compact-retry",
        "compact, then send the unanswered message again (F8)",
        run.compact_retry,
        Key("f8", "Compact", show=False),
        (
            Entry(
                "Compact and send again",
                "After the context overflowed: compact, then send your message again (F8)",
            ),
        ),
        while_busy=False,
        needs_session=True,
    ),
    Action(
        "rewind",
        "rewind files and/or conversation (F5); undo: the last rewind",
        run.rewind,
        Key("f5", "Rewind", show=False),
        (
            Entry(
                "Rewind: to before one of your messages",
                "Undo what the agent did to your files and/or the conversation (F5)",
            ),
            Entry(
                "Rewind: undo the last rewind",
                "Put back the files the last rewind replaced",
                "undo",
            ),
        ),
        usage="[undo]",
        complete=run.rewind_args,
    ),
    Action(
        "rerun-unconfined",
        "re-run the command the sandbox blocked, unconfined, after a new approval (F6)",
        run.rerun_unconfined,
        Key("f6", "Re-run unconfined", show=False, priority=True),
        (
            Entry(
                "Sandbox: re-run the blocked command unconfined",
                "A new approval for the last command the sandbox blocked, to run once with it "
                "off (F6)",
            ),
        ),
        while_busy=False,
        needs_session=True,
        offered=session_actions.session_open,
        unavailable=session_actions.STILL_OPENING,
    ),
    Action(
        "editor",
        "edit the message in $VISUAL or $EDITOR (Ctrl+G)",
        run.editor,
        Key("ctrl+g", "Editor", show=False),
    ),
    Action(
        "history",
        "search your earlier messages in this workspace (Alt+R)",
        run.history,
        Key("alt+r", "History", show=False, priority=True),
    ),
    Action(
        "paste-image",
        "attach the clipboard's image (Alt+V; wl-paste, xclip or pngpaste)",
        _paste_image,
        Key("alt+v", "Paste image", show=False, priority=True),
        (Entry("Paste image", "Attach the clipboard's image to the message (Alt+V)"),),
    ),
    # Without a key.
    Action("help", "list the slash commands", _help),
    session_actions.MODEL,
    session_actions.EFFORT,
    session_actions.PROFILE,
    Action(
        "plan",
        "plan mode on or off: the model may only read, and plans",
        run.plan,
        needs_session=True,
    ),
    Action(
        "compact",
        "summarize the older conversation; TEXT says what to keep",
        run.compact,
        palette=(
            Entry(
                "Compact the conversation",
                "Summarize the older messages for the model; the transcript keeps them (/compact)",
            ),
        ),
        usage="[TEXT]",
        while_busy=False,
        needs_session=True,
    ),
    Action(
        "context",
        "how full the context window is, its size and where it came from",
        run.context,
    ),
    cost_view.COST,
    Action(
        "hooks",
        "list your hooks: their moment, matcher, command, sandbox and source",
        run.hooks,
        palette=(Entry("Hooks", "Your hooks: moment, matcher, command, sandbox, source (/hooks)"),),
        needs_session=True,
    ),
    Action(
        "fork",
        "fork this session at a message and switch to the fork",
        run.fork,
        usage="[N]",
        while_busy=False,
        needs_session=True,
    ),
    Action(
        "new",
        "start a new session in this workspace",
        run.new,
        palette=(
            Entry(
                "Sessions: new",
                "Start a new session in this workspace, with this profile and model (/new)",
            ),
        ),
        while_busy=False,
        needs_session=True,
    ),
    Action(
        "export",
        "write this session as Markdown into the workspace",
        run.export,
        usage="[FILE]",
        needs_session=True,
    ),
    Action("theme", "switch the theme", run.theme, usage="[NAME]", complete=run.themes),
    session_actions.SANDBOX,
    session_actions.NETWORK,
    session_actions.MCP_RESTART,
    Action(
        "skills",
        "list the skills the model may load, and where each comes from",
        run.skills,
        palette=(
            Entry("Skills", "The skills the model may load, and where each comes from (/skills)"),
        ),
        needs_session=True,
    ),
    Action(
        "agents",
        "list the subagents the task tool can start, with their tools and where each comes from",
        run.agents,
        palette=(
            Entry("Agents", "The subagents the model may start with the task tool (/agents)"),
        ),
        needs_session=True,
    ),
    jobs_view.JOBS,
    Action(
        "trust-templates",
        "show this workspace's prompt templates and trust them",
        run.trust_templates,
        needs_session=True,
    ),
    Action(
        "memory",
        "edit the AGENTS.md files (the workspace's and yours) in $VISUAL or $EDITOR",
        run.memory,
        palette=(
            Entry(
                "Edit memory (AGENTS.md)",
                "Open the AGENTS.md files in $VISUAL or $EDITOR (/memory)",
            ),
        ),
        needs_session=True,
    ),
    Action(
        "trust-workspace",
        "show what this workspace brings (AGENTS.md, templates, MCP servers) and trust it",
        run.trust_workspace,
        needs_session=True,
    ),
    # Textual's own, whose palette entries Textual declares (TEXTUAL_OWN).
    Action("keys", "show or hide the keys and widget help panel", run.keys),
    Action("maximize", "maximize the focused widget, or restore it", run.maximize),
    Action("screenshot", "save an SVG 'screenshot' of the current screen", run.screenshot),
)

# The palette entries Textual's App declares itself (``App.get_system_commands``).
TEXTUAL_OWN = frozenset({"Theme", "Quit", "Keys", "Maximize", "Minimize", "Screenshot"})

__all__ = [
    "ACTIONS",
    "Action",
    "Entry",
    "Key",
    "add_action",
    "remove_action",
]  # the rows' types: shell.py

BY_NAME = {action.name: action for action in ACTIONS}
assert len(BY_NAME) == len(ACTIONS), "two actions of one name"


def add_action(app: Shell, action: Action) -> None:
    """Offer ``action`` in ``app`` (a later one of the same name replaces it)."""
    app.added_actions[action.name] = action


def remove_action(app: Shell, name: str) -> None:
    app.added_actions.pop(name, None)


def actions_of(app: Shell) -> list[Action]:
    """The table and what was added, as ``app`` offers them now."""
    merged = {**BY_NAME, **app.added_actions}
    return [a for a in merged.values() if a.offered is None or a.offered(app)]


def perform(app: Shell, action: Action, arguments: str = "") -> None:
    """Run ``action`` if it may run now; else say why (once, here, for every action)."""
    if action.needs_session and app.host is None:
        app.notify("still starting, or not configured", severity="warning")
        return
    if not action.while_busy and app.busy:
        app.notify("the agent is busy: Esc stops it first", severity="warning")
        return
    result = action.run(app, arguments)
    if result is not None and hasattr(result, "__await__"):
        app.run_worker(result, group="slash-command")


def perform_named(app: Shell, name: str) -> None:
    """A key's action (``act('name')``)."""
    action = app.added_actions.get(name) or BY_NAME[name]
    perform(app, action)


# -- what is built of the table ------------------------------------------------------------


def key_bindings() -> list[Binding]:
    """The app's ``BINDINGS``."""
    return [
        Binding(
            a.key.key, f"act('{a.name}')", a.key.label, show=a.key.show, priority=a.key.priority
        )
        for a in ACTIONS
        if a.key is not None
    ]


def palette_entries(app: Shell) -> Iterator[SystemCommand]:
    """The app's entries of the command palette, after Textual's own."""
    for action in actions_of(app):
        entries = [*action.palette, *(action.entries(app) if action.entries else ())]
        for entry in entries:
            yield SystemCommand(
                entry.title, entry.help, functools.partial(perform, app, action, entry.arguments)
            )


def all_commands(app: Shell) -> list[SlashCommand]:
    """The slash commands on offer: the actions', then the usable prompt templates."""
    commands: dict[str, SlashCommand] = {}
    for action in actions_of(app):
        if action.slash:
            commands[action.name] = SlashCommand(
                action.name,
                action.help,
                functools.partial(_perform_slash, action),
                action.complete,
                action.usage,
            )
    usable, _ = templates_of(app)
    for template in usable:
        commands.setdefault(
            template.name,
            SlashCommand(
                template.name,
                f"{template.description} ({template.source} template)",
                template=template,
                usage="[ARGUMENTS]",
            ),
        )
    return list(commands.values())


def _perform_slash(action: Action, app: Shell, arguments: str) -> None:
    perform(app, action, arguments)


def suggestions(app: Shell, text: str, cursor: int) -> list[Suggestion]:
    return _suggestions(all_commands(app), app, text, cursor)


def run_slash(app: Shell, text: str) -> str | None:
    """The text to send, or None when ``text`` was a command (run, or refused with a notice)."""
    word = text.strip().partition(" ")[0]
    action = {**BY_NAME, **app.added_actions}.get(word[1:].lower()) if word[:2] != "//" else None
    if action is not None and action.slash and action.offered and not action.offered(app):
        # A command that exists but does not apply now says why, not "unknown command".
        from .widgets.prompt_input import PromptInput

        why = action.unavailable or "not available in this session"
        app.notify(f"{word} does not apply now: {why}", severity="warning", markup=False)
        app.query_one(PromptInput).restore(text)
        return None
    return _run_slash(all_commands(app), app, text)
