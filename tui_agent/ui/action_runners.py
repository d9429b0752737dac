"""What each action of the table (``actions.py``) does, and how its arguments complete.

A runner takes the app and the text after the slash command ("" from a key or the palette);
what it returns is ignored, except that a coroutine is run in a worker. Whether the session must
be open, or the agent idle, is said by the table and checked once, before a runner is called.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell import Shell


# -- completions ---------------------------------------------------------------------------


def profiles(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    if app.host is None:
        return
    for name, profile in app.host.config.profiles.items():
        yield name, f"{profile.protocol} {profile.model or ''}".strip()
    yield "demo", "the offline demo model"


def models(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    yield from model_list(app)


def model_list(app: Shell) -> list[tuple[str, str]]:
    """The model in use, the configured ones of its protocol, and the ones its server offers
    (asked in the background once the session opened; ``host.server_models``)."""
    from ..context.discovery import model_choices

    host = app.host
    if host is None:
        return []
    current = host.profile
    configured = {
        name: (profile.protocol, profile.model) for name, profile in host.config.profiles.items()
    }
    offered = host.server_models.get((current.protocol, current.base_url or ""), ())
    return model_choices(current.model, current.protocol, configured, offered)


def modes(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    from .approval_mode import MODES

    descriptions = {
        "ask": "ask before every call",
        "plan": "only read tools: the model plans",
        "auto-read": "approve read-only tools by themselves",
        "auto-all": "approve every call (asks first)",
    }
    for mode in MODES:
        yield mode, descriptions.get(mode, "approval mode")


def themes(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    for name in sorted(app.available_themes):
        yield name, "the current theme" if name == app.theme else "theme"


def rewind_args(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    yield "undo", "put back the files the last rewind replaced"


def sandbox_modes(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    from ..sandbox.policy import SandboxMode

    for mode in SandboxMode:
        yield mode.value, "sandbox mode"


def network_choices(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    yield "on", "confined commands reach the network"
    yield "off", "confined commands are cut off the network"


def mcp_servers(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    servers = app.host.mcp if app.host is not None else None
    for name in servers.connections if servers is not None else ():
        yield name, "MCP server"


# -- commands ------------------------------------------------------------------------------


def model(app: Shell, arguments: str) -> None:
    if arguments:
        app.switch_profile(None, arguments)
        return
    from .screens.model_input import ModelInput

    assert app.host is not None  # the table: only once the session is open

    def chosen(model: str | None) -> None:
        if model:
            app.switch_profile(None, model)

    app.push_screen(ModelInput(app.host.profile.model, model_list(app)), chosen)


def effort(app: Shell, arguments: str) -> None:
    from ..providers.effort import EFFORTS
    from .widgets.status_bar import StatusBar
    from .widgets.transcript import Transcript

    assert app.host is not None  # the table: only once the session is open
    level = arguments.lower()
    if not level:
        now = app.host.profile.effort or "the model default"
        app.notify(f"reasoning effort: {now} (/effort {'|'.join(EFFORTS)}|default)", markup=False)
        return
    if level not in (*EFFORTS, "default", "off"):
        app.notify(
            f"no effort {arguments!r}: {', '.join(EFFORTS)} or default",
            severity="warning",
            markup=False,
        )
        return
    chosen = level if level in EFFORTS else None
    line = app.host.set_effort(chosen)
    app.query_one(StatusBar).effort = chosen or ""
    app.query_one(Transcript).add_notice(line, "info")


def efforts(app: Shell, typed: str) -> Iterator[tuple[str, str]]:
    current = app.host.profile.effort if app.host is not None else None
    for level, what in (
        ("low", "think briefly"),
        ("medium", "think some"),
        ("high", "think at length"),
        ("default", "leave it to the model"),
    ):
        yield level, f"{what} (in use now)" if level == (current or "default") else what


def profile(app: Shell, arguments: str) -> None:
    if not arguments:
        app.notify("which profile? /profile NAME (Tab lists them)", severity="warning")
        return
    app.switch_profile(arguments)


def mode(app: Shell, arguments: str) -> None:
    from .approval_mode import MODES, cycle_mode

    if not arguments:
        cycle_mode(app)
    elif arguments in MODES:
        app.set_approval_mode(arguments)
    else:
        app.notify(f"no approval mode {arguments!r}: {', '.join(MODES)}", markup=False)


def compact(app: Shell, arguments: str) -> None:
    from .context_view import compact

    compact(app, arguments)


def hooks(app: Shell, arguments: str) -> None:
    from ..hooks import hooks_report
    from .widgets.transcript import Transcript

    session = app.host.agent.calls.hooks if app.host is not None else None
    app.query_one(Transcript).add_notice(hooks_report(session.declared if session else ()), "info")


def context(app: Shell, arguments: str) -> None:
    from .context_view import context_report
    from .widgets.transcript import Transcript

    app.query_one(Transcript).add_notice(context_report(app), "info")


def compact_retry(app: Shell, arguments: str) -> None:
    """F8: compact the conversation, then send the unanswered message again (if any)."""
    from .context_view import compact

    compact(app, then_retry=True)


def rewind(app: Shell, arguments: str) -> None:
    from .rewind_action import open_rewind

    open_rewind(app, undo=arguments == "undo")


def theme(app: Shell, arguments: str) -> None:
    from .themes import apply_theme

    if not arguments:
        app.action_change_theme()
    elif not apply_theme(app, arguments):
        app.notify(f"no theme named {arguments!r}", severity="warning", markup=False)


def fork(app: Shell, arguments: str) -> None:
    from .screens.fork_picker import ForkPicker
    from .session_switch import current_session_id

    host = app.host
    session_id = current_session_id(app)
    store = host.store if host is not None else None
    if store is None or session_id is None:
        return

    async def fork_at(at: int) -> None:
        from ..agent.fork import fork_session
        from ..session import SessionError

        try:
            made, _ = await asyncio.to_thread(fork_session, store, session_id, at)
            await app.switch_session(made.session_id)
        except SessionError as exc:
            app.notify(str(exc), severity="error", markup=False)

    if arguments.isdigit():
        app.run_worker(fork_at(int(arguments)), group="slash-command")
        return

    def picked(at: int | None) -> None:
        if at:
            app.run_worker(fork_at(at), group="slash-command")

    app.push_screen(ForkPicker(session_id, store), picked)


async def export(app: Shell, arguments: str) -> None:
    from ..export.files import write_private
    from ..export.markdown import render_markdown
    from ..export.redactor import export_redactor
    from ..session import SessionError, redact_session
    from .session_switch import current_session_id

    host = app.host
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


async def new(app: Shell, arguments: str) -> None:
    from .new_session import new_session

    await new_session(app)


def trust_templates(app: Shell, arguments: str) -> None:
    from .template_trust import ask_trust

    ask_trust(app)


def skills(app: Shell, arguments: str) -> None:
    from ..prompting.skills import skills_report
    from .widgets.transcript import Transcript

    host = app.host
    if host is None:
        return
    book = host.skills
    waiting = host.untrusted_content().skills
    report = skills_report(
        book.skills if book is not None else (),
        waiting,
        book.problems if book is not None else (),
    )
    app.query_one(Transcript).add_notice(report, "info")


def agents(app: Shell, arguments: str) -> None:
    """/agents: the subagents on offer, those waiting for trust, the files skipped."""
    from ..prompting.agents import agents_report
    from .widgets.transcript import Transcript

    host = app.host
    if host is None:
        return
    delegation = host.delegation
    if delegation is None:
        text = (
            "the task tool is off: subagent_depth is 0"
            if host.config.settings.subagent_depth < 1
            else "the task tool is not offered to the offline demo model"
        )
        app.query_one(Transcript).add_notice(text, "info")
        return
    book = delegation.book
    content = host.untrusted_content()
    problems = (*book.problems, *(p for p in content.problems if "agents/" in p))
    report = agents_report(book.agents, content.agents, problems, delegation.max_depth)
    app.query_one(Transcript).add_notice(report, "info")


def memory(app: Shell, arguments: str) -> None:
    """/memory: the AGENTS.md files in $VISUAL or $EDITOR."""
    from .memory import edit_memory

    edit_memory(app)


def trust_workspace(app: Shell, arguments: str) -> None:
    from .workspace_trust import ask_workspace_trust

    if app.host is not None:
        when_none = "nothing of this workspace waits to be trusted"
        ask_workspace_trust(app, app.host, when_none=when_none)


def plan(app: Shell, arguments: str) -> None:
    from .plan_view import toggle_plan

    toggle_plan(app)


def quit_app(app: Shell, arguments: str) -> object:
    return app.action_quit()


def stop(app: Shell, arguments: str) -> None:
    app.action_stop()


def interrupt(app: Shell, arguments: str) -> None:
    """Ctrl+C with nothing selected: stop the work, clear the box, or (twice) quit."""
    from .interrupt import interrupt

    interrupt(app)


def focus_queue(app: Shell, arguments: str) -> None:
    """Alt+Up: to the messages queued while the agent works (edit, remove)."""
    app.queue.focus()


def toggle_calls(app: Shell, arguments: str) -> None:
    from .widgets.side_panel import SidePanel

    panel = app.query_one(SidePanel)
    panel.display = not panel.display


def retry(app: Shell, arguments: str) -> None:
    from .widgets.transcript import Transcript

    assert app.host is not None  # the table: only once the session is open, and idle
    if not app.host.agent.unanswered():
        app.notify("nothing to retry")
        return
    app.query_one(Transcript).add_notice("↻ retry: your last message is sent again", "info")
    app.drive(app.host.agent.retry())


# What is copied is what was shown: control characters (an ESC[201~ would end a shell's
# bracketed paste and run what follows), bidi controls and hidden characters arrive in the
# clipboard as the same visible escapes the screen shows, never as themselves.


def copy_answer(app: Shell, arguments: str) -> None:
    from .sanitize import markdown_safe

    text = app.router.last_answer() if app.router is not None else ""
    if text:
        app.copy_to_clipboard(markdown_safe(text))
        app.notify("last answer copied")


def copy_code(app: Shell, arguments: str) -> None:
    from .code_blocks import last_code_block
    from .sanitize import markdown_safe

    block = last_code_block(app.router.last_answer() if app.router is not None else "")
    if block is None:
        app.notify("the last answer has no code block")
        return
    app.copy_to_clipboard(markdown_safe(block))
    app.notify("last code block copied")


def sessions(app: Shell, arguments: str) -> None:
    from .screens.session_browser import SessionBrowser

    if not isinstance(app.screen, SessionBrowser):
        app.push_screen(SessionBrowser())


def approval_rules(app: Shell, arguments: str) -> None:
    from .screens.approval_rules import ApprovalRulesScreen

    if app.host is not None and not isinstance(app.screen, ApprovalRulesScreen):
        app.push_screen(ApprovalRulesScreen(app.host))


def rerun_unconfined(app: Shell, arguments: str) -> None:
    """F6: re-run the command the sandbox blocked, unconfined, after a new approval."""
    from .sandbox_view import rerun_blocked

    rerun_blocked(app)


def editor(app: Shell, arguments: str) -> None:
    """Ctrl+G: edit the message in $VISUAL or $EDITOR."""
    from .prompt_keys import edit_in_editor

    edit_in_editor(app)


def history(app: Shell, arguments: str) -> None:
    """Alt+R: search your earlier messages of this workspace."""
    from .prompt_keys import search_history

    search_history(app)


def sandbox(app: Shell, arguments: str) -> None:
    """/sandbox MODE: this session's commands run under MODE; alone: what is protected."""
    from ..sandbox.policy import SandboxMode
    from .sandbox_view import open_report, set_sandbox

    if not arguments:
        open_report(app)
        return
    try:
        chosen = SandboxMode(arguments)
    except ValueError:
        names = ", ".join(m.value for m in SandboxMode)
        app.notify(f"no sandbox mode {arguments!r}: {names}", severity="warning", markup=False)
        return
    set_sandbox(app, chosen, None)


def network(app: Shell, arguments: str) -> None:
    """/network on|off (alone: the other one): whether confined commands reach the network."""
    from .sandbox_view import set_sandbox

    assert app.host is not None  # the table: only once the session is open
    if arguments not in ("", "on", "off"):
        app.notify("/network on or /network off", severity="warning")
        return
    now = app.host.agent.calls.context.sandbox.network
    set_sandbox(app, None, (not now) if not arguments else arguments == "on")


def mcp_restart(app: Shell, arguments: str) -> object:
    """/mcp-restart [NAME]: stop and start every MCP server, or the one named."""
    servers = app.host.mcp if app.host is not None else None
    if servers is None:
        return None
    if arguments and arguments not in servers.connections:
        app.notify(f"no MCP server {arguments!r}", severity="warning", markup=False)
        return None
    return servers.restart(arguments or None)


def keys(app: Shell, arguments: str) -> None:
    """Textual's keys and widget help panel, shown or hidden."""
    if app.screen.query("HelpPanel"):
        app.action_hide_help_panel()
    else:
        app.action_show_help_panel()


def screenshot(app: Shell, arguments: str) -> None:
    app.set_timer(0.1, app.deliver_screenshot)


def maximize(app: Shell, arguments: str) -> None:
    """The focused widget maximized, or back to its size."""
    screen = app.screen
    if screen.maximized is not None:
        screen.action_minimize()
    elif screen.focused is not None and screen.focused.allow_maximize:
        screen.action_maximize()
