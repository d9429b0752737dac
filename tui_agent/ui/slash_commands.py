"""Slash commands typed at the start of the message box: completion and running.

A command is ``/name [arguments]``. What is on offer comes from the actions' table
(``actions.all_commands``: the actions, then prompt templates, ``prompting/templates.py``). An
unknown ``/word`` is refused with a notice and stays in the box (never sent); ``//text`` sends
``/text``; a first word holding another slash (a path such as ``/usr/bin``) is sent as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .shell import Completer, Runner

if TYPE_CHECKING:
    from ..prompting.templates import PromptTemplate
    from .shell import Shell


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    run: Runner | None = None  # None: a prompt template (``template`` is expanded and sent)
    complete: Completer | None = None
    usage: str = ""  # how the arguments look, e.g. "[NAME]"
    template: PromptTemplate | None = None


def templates_of(app: Shell) -> tuple[list[PromptTemplate], list[PromptTemplate]]:
    """The usable templates, and the workspace's that wait to be trusted."""
    from ..prompting.templates import available_templates

    host = app.host
    found = available_templates(host.workspace if host is not None else None)
    return found.usable, found.untrusted


def _find(commands: Sequence[SlashCommand], name: str) -> SlashCommand | None:
    return next((c for c in commands if c.name == name), None)


# -- completion ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """Replace ``text[start:end]`` with ``value`` when chosen."""

    value: str
    label: str
    description: str
    start: int
    end: int


def suggestions(
    commands: Sequence[SlashCommand], app: Shell, text: str, cursor: int
) -> list[Suggestion]:
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
            for c in sorted(commands, key=lambda c: c.name)
            if c.name.startswith(typed.lower())
        ]
    command = _find(commands, word[1:])
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


def run_slash(commands: Sequence[SlashCommand], app: Shell, text: str) -> str | None:
    """The text to send, or None when ``text`` was a command (run, or refused with a notice)."""
    if text.startswith("//"):
        return text[1:]
    word, _, rest = text.strip().partition(" ")
    name = word[1:]
    if not text.startswith("/") or not name or "/" in name:
        return text
    command = _find(commands, name.lower())
    if command is not None and command.template is not None:
        return command.template.expand(rest)
    if command is not None and command.run is not None:
        command.run(app, rest.strip())
        return None
    _refuse(app, word, text)
    return None


def _refuse(app: Shell, word: str, text: str) -> None:
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
