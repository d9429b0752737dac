"""The built-in slash commands: one for each action of the command palette (Ctrl+P).

Each takes the app and the text after the command. Palette entries not covered here (those of
MCP servers, the sandbox, Textual's own) are offered by ``slash_commands.palette_commands``
under names made from their titles; ``COVERED_PALETTE_TITLES`` says which titles are covered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .slash_commands import SlashCommand


def _host(app: Any) -> Any:
    if app.host is None:
        app.notify("still starting, or not configured", severity="warning")
    return app.host


# -- completions ---------------------------------------------------------------------------


def _profiles(app: Any, typed: str) -> Iterator[tuple[str, str]]:
    if app.host is None:
        return
    for name, profile in app.host.config.profiles.items():
        yield name, f"{profile.protocol} {profile.model or ''}".strip()
    yield "demo", "the offline demo model"


def _models(app: Any, typed: str) -> Iterator[tuple[str, str]]:
    if app.host is None:
        return
    seen: set[str] = set()
    current = app.host.profile.model
    if current:
        seen.add(current)
        yield current, "in use now"
    for name, profile in app.host.config.profiles.items():
        if (
            profile.model
            and profile.model not in seen
            and profile.protocol == app.host.profile.protocol
        ):
            seen.add(profile.model)
            yield profile.model, f"of the {name} profile"


def _modes(app: Any, typed: str) -> Iterator[tuple[str, str]]:
    from .approval_mode import MODES

    descriptions = {
        "ask": "ask before every call",
        "plan": "only read tools: the model plans",
        "auto-read": "approve read-only tools by themselves",
        "auto-all": "approve every call (asks first)",
    }
    for mode in MODES:
        yield mode, descriptions.get(mode, "approval mode")


def _themes(app: Any, typed: str) -> Iterator[tuple[str, str]]:
    for name in sorted(app.available_themes):
        yield name, "the current theme" if name == app.theme else "theme"


def _rewind_args(app: Any, typed: str) -> Iterator[tuple[str, str]]:
    yield "undo", "put back the files the last rewind replaced"


# -- commands ------------------------------------------------------------------------------


def _help(app: Any, arguments: str) -> None:
    from .slash_commands import all_commands
    from .widgets.transcript import Transcript

    lines = ["Commands (type / in the message box; Tab completes):"]
    for command in sorted(all_commands(app), key=lambda c: c.name):
        usage = f" {command.usage}" if command.usage else ""
        lines.append(f"  /{command.name}{usage} — {command.description}")
    app.query_one(Transcript).add_notice("\n".join(lines), "info")


def _model(app: Any, arguments: str) -> None:
    if arguments:
        app.switch_profile(None, arguments)
    else:
        app.action_choose_model()


def _profile(app: Any, arguments: str) -> None:
    if not arguments:
        app.notify("which profile? /profile NAME (Tab lists them)", severity="warning")
        return
    app.switch_profile(arguments)


def _mode(app: Any, arguments: str) -> None:
    from .approval_mode import MODES

    if not arguments:
        app.action_cycle_mode()
    elif arguments in MODES:
        app.set_approval_mode(arguments)
    else:
        app.notify(f"no approval mode {arguments!r}: {', '.join(MODES)}", markup=False)


def _compact(app: Any, arguments: str) -> None:
    from .context_view import compact

    compact(app, arguments)


def _context(app: Any, arguments: str) -> None:
    from .context_view import context_report
    from .widgets.transcript import Transcript

    app.query_one(Transcript).add_notice(context_report(app), "info")


def _rewind(app: Any, arguments: str) -> None:
    from .rewind_action import open_rewind

    open_rewind(app, undo=arguments == "undo")


def _theme(app: Any, arguments: str) -> None:
    from .themes import apply_theme

    if not arguments:
        app.action_change_theme()
    elif not apply_theme(app, arguments):
        app.notify(f"no theme named {arguments!r}", severity="warning", markup=False)


def _fork(app: Any, arguments: str) -> None:
    from .screens.fork_picker import ForkPicker
    from .session_switch import current_session_id

    host = _host(app)
    session_id = current_session_id(app)
    if host is None or session_id is None or host.store is None:
        return
    if app.busy:
        app.notify("the agent is busy: Esc stops it, then fork", severity="warning")
        return

    async def fork_at(at: int) -> None:
        from ..agent.fork import fork_session
        from ..session import SessionError

        try:
            made, _ = await asyncio.to_thread(fork_session, host.store, session_id, at)
            await app.switch_session(made.session_id)
        except SessionError as exc:
            app.notify(str(exc), severity="error", markup=False)

    if arguments.isdigit():
        app.run_worker(fork_at(int(arguments)), group="slash-command")
        return
    app.push_screen(
        ForkPicker(session_id, host.store),
        lambda at: app.run_worker(fork_at(at), group="slash-command") if at else None,
    )


async def _export(app: Any, arguments: str) -> None:
    from ..export.files import write_private
    from ..export.markdown import render_markdown
    from ..export.redactor import export_redactor
    from ..session import SessionError, redact_session
    from .session_switch import current_session_id

    host = _host(app)
    session_id = current_session_id(app)
    if host is None or session_id is None or host.store is None:
        return
    target = Path(arguments or f"tui-agent-{session_id}.md")
    if not target.is_absolute():
        target = host.workspace / target
    try:
        loaded = await asyncio.to_thread(host.store.load, session_id)
        redactor = export_redactor()
        text = redactor.redact(render_markdown(redact_session(loaded, redactor)))
        await asyncio.to_thread(write_private, target, text, force=False)
    except FileExistsError:
        app.notify(f"{target.name} exists: give /export another name", severity="warning")
        return
    except (OSError, SessionError) as exc:
        app.notify(f"cannot export: {exc}", severity="error", markup=False)
        return
    app.notify(f"exported this session as Markdown to {target.name}", markup=False)


async def _new(app: Any, arguments: str) -> None:
    from .new_session import new_session

    await new_session(app)


def _trust_templates(app: Any, arguments: str) -> None:
    from .template_trust import ask_trust

    ask_trust(app)


def _trust_workspace(app: Any, arguments: str) -> None:
    from .workspace_trust import ask_workspace_trust

    if app.host is not None:
        when_none = "nothing of this workspace waits to be trusted"
        ask_workspace_trust(app, app.host, when_none=when_none)


def _history(app: Any, arguments: str) -> None:
    app.action_search_history()


def _editor(app: Any, arguments: str) -> None:
    app.action_external_editor()


def _plain(action: str) -> Any:
    def run(app: Any, arguments: str) -> object:
        return getattr(app, f"action_{action}")()

    return run


BUILTINS: list[SlashCommand] = [
    SlashCommand("help", "list the slash commands", _help),
    SlashCommand("quit", "quit tui-agent (Ctrl+Q)", _plain("quit")),
    SlashCommand("model", "use another model from the next turn", _model, _models, "[MODEL]"),
    SlashCommand("profile", "use another profile from the next turn", _profile, _profiles, "NAME"),
    SlashCommand(
        "mode", "approval mode: ask, plan, auto-read, auto-all (F3)", _mode, _modes, "[MODE]"
    ),
    SlashCommand(
        "compact",
        "summarize the older conversation; TEXT says what to keep",
        _compact,
        usage="[TEXT]",
    ),
    SlashCommand(
        "context", "how full the context window is, its size and where it came from", _context
    ),
    SlashCommand("retry", "send the unanswered message again (Ctrl+R)", _plain("retry")),
    SlashCommand(
        "rewind",
        "rewind files and/or conversation (F5); undo: the last rewind",
        _rewind,
        _rewind_args,
        "[undo]",
    ),
    SlashCommand(
        "fork", "fork this session at a message and switch to the fork", _fork, usage="[N]"
    ),
    SlashCommand(
        "sessions",
        "browse, resume, rename, delete saved sessions (Ctrl+O)",
        _plain("browse_sessions"),
    ),
    SlashCommand(
        "export", "write this session as Markdown into the workspace", _export, usage="[FILE]"
    ),
    SlashCommand("theme", "switch the theme", _theme, _themes, "[NAME]"),
    SlashCommand("new", "start a new session in this workspace", _new),
    SlashCommand("calls", "show or hide the calls panel (F2)", _plain("toggle_calls")),
    SlashCommand(
        "rules", "what is auto-approved; revoke or save rules (F4)", _plain("approval_rules")
    ),
    SlashCommand("copy", "copy the last answer (Ctrl+Y)", _plain("copy_answer")),
    SlashCommand(
        "copy-code", "copy the last answer's last code block (Ctrl+K)", _plain("copy_code")
    ),
    SlashCommand("history", "search your earlier messages in this workspace (Alt+R)", _history),
    SlashCommand("editor", "edit the message in $VISUAL or $EDITOR (Ctrl+G)", _editor),
    SlashCommand(
        "trust-templates", "show this workspace's prompt templates and trust them", _trust_templates
    ),
    SlashCommand(
        "trust-workspace",
        "show what this workspace brings (AGENTS.md, templates, MCP servers) and trust it",
        _trust_workspace,
    ),
]

COVERED_PALETTE_TITLES = (
    "Approval mode",
    "Approval: what is auto-approved",
    "Calls panel",
    "Rewind:",
    "Sessions: browse",
    "Sessions: new",
    "Copy last",
    "Model: choose",
    "Profile:",
    "Retry",
    "Compact the conversation",
    "Theme",
    "Quit",
)
