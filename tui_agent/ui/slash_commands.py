"""Slash commands typed at the start of the message box: the registry, completion and running.

A command is ``/name [arguments]``. What is on offer, in this order: the built-in commands
(``slash_builtins``: one for each palette action), commands other modules registered with
``register``, prompt templates (``prompting/templates.py``), and every other palette entry
under a name made from its title. An unknown ``/word`` is refused with a notice and stays in
the box (never sent); ``//text`` sends ``/text``; a first word holding another slash (a path
such as ``/usr/bin``) is sent as it is.

To add a command from anywhere::

    from tui_agent.ui.slash_commands import register
    register("plan", "plan before acting", lambda app, args: ...)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..prompting.templates import PromptTemplate

# (app, arguments) -> anything (the result is ignored; a coroutine is run by the app).
Runner = Callable[[Any, str], object]
# (app, what is typed of the arguments) -> (value, description) pairs
Completer = Callable[[Any, str], Iterable[tuple[str, str]]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    run: Runner | None = None  # None: a prompt template (``template`` is expanded and sent)
    complete: Completer | None = None
    usage: str = ""  # how the arguments look, e.g. "[NAME]"
    template: PromptTemplate | None = None


_registered: dict[str, SlashCommand] = {}


def register(
    name: str,
    description: str,
    run: Runner,
    complete: Completer | None = None,
    usage: str = "",
) -> None:
    """Offer ``/name`` in the message box (a later registration of a name replaces it)."""
    _registered[name] = SlashCommand(name, description, run, complete, usage)


def unregister(name: str) -> None:
    _registered.pop(name, None)


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def palette_commands(app: Any, covered: Iterable[str]) -> list[SlashCommand]:
    """Palette entries no built-in command stands for, named after their titles."""
    prefixes = tuple(covered)
    found: list[SlashCommand] = []
    try:
        entries = list(app.get_system_commands(app.screen))
    except Exception:  # no screen yet
        return []
    for entry in entries:
        if entry.title.startswith(prefixes):
            continue
        callback = entry.callback

        def run(app: Any, arguments: str, callback: Any = callback) -> object:
            return callback()

        found.append(SlashCommand(_slug(entry.title), _as_phrase(entry.help), run))
    return found


def _as_phrase(help_text: str) -> str:
    """A palette help ("Save an SVG ...") read like the built-ins' ("save an SVG ...");
    a leading acronym ("MCP ...") keeps its capitals."""
    if help_text[1:2].islower():
        return help_text[:1].lower() + help_text[1:]
    return help_text


def templates_of(app: Any) -> tuple[list[PromptTemplate], list[PromptTemplate]]:
    """The usable templates, and the workspace's that wait to be trusted."""
    from ..prompting.templates import available_templates

    host = getattr(app, "host", None)
    found = available_templates(host.workspace if host is not None else None)
    return found.usable, found.untrusted


def all_commands(app: Any) -> list[SlashCommand]:
    from .slash_builtins import BUILTINS, COVERED_PALETTE_TITLES

    commands: dict[str, SlashCommand] = {c.name: c for c in BUILTINS}
    for command in _registered.values():
        commands[command.name] = command
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
    for command in palette_commands(app, COVERED_PALETTE_TITLES):
        commands.setdefault(command.name, command)
    return list(commands.values())


def find(app: Any, name: str) -> SlashCommand | None:
    return next((c for c in all_commands(app) if c.name == name), None)


# -- completion ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """Replace ``text[start:end]`` with ``value`` when chosen."""

    value: str
    label: str
    description: str
    start: int
    end: int


def suggestions(app: Any, text: str, cursor: int) -> list[Suggestion]:
    """What to offer for a message box holding ``text`` with the cursor at offset ``cursor``."""
    if not text.startswith("/") or text.startswith("//") or "\n" in text[:cursor]:
        return []
    word, space, rest = text.partition(" ")
    if not space:
        if cursor > len(word):
            return []
        typed = word[1:cursor]
        return [
            Suggestion(f"/{c.name} ", f"/{c.name} {c.usage}".rstrip(), c.description, 0, len(word))
            for c in sorted(all_commands(app), key=lambda c: c.name)
            if c.name.startswith(typed.lower())
        ]
    command = find(app, word[1:])
    start = len(word) + 1
    if (
        command is None
        or command.complete is None
        or cursor < start
        or " " in rest[: cursor - start]
    ):
        return []
    typed = text[start:cursor]
    end = start + len(rest.split(" ", 1)[0])
    return [
        Suggestion(value, value, description, start, end)
        for value, description in command.complete(app, typed)
        if value.lower().startswith(typed.lower())
    ]


# -- running -------------------------------------------------------------------------------


def run_slash(app: Any, text: str) -> str | None:
    """The text to send, or None when ``text`` was a command (run, or refused with a notice)."""
    if text.startswith("//"):
        return text[1:]
    word, _, rest = text.strip().partition(" ")
    name = word[1:]
    if not text.startswith("/") or not name or "/" in name:
        return text
    command = find(app, name.lower())
    if command is not None and command.template is not None:
        return command.template.expand(rest)
    if command is not None and command.run is not None:
        result = command.run(app, rest.strip())
        if result is not None and hasattr(result, "__await__"):
            app.run_worker(result, group="slash-command")
        return None
    _refuse(app, word, text)
    return None


def _refuse(app: Any, word: str, text: str) -> None:
    from .widgets.prompt_input import PromptInput

    _, untrusted = templates_of(app)
    if any(t.name == word[1:].lower() for t in untrusted):
        why = (
            f"{word} is a prompt template of this workspace, not trusted yet: "
            "/trust-templates shows them and asks"
        )
    else:
        why = (
            f"unknown command {word!r}: nothing was sent. /help lists the commands "
            "(start with // to send a message beginning with a slash)"
        )
    app.notify(why, severity="warning", markup=False)
    app.query_one(PromptInput).restore(text)
