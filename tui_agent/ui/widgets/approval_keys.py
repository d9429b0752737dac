"""The approval prompt's keys: which exist, the hint line that shows them, and what they keep."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

from ...approval.decision import Decision
from ...approval.launchers import command_refusal
from ...approval.rules import SHELL_TOOL, AllowCommand, AllowCommandPrefix, Rule
from ...approval.shell_words import command_words, prefix_matches
from ..sanitize import safe_text

CHOICE_KEYS = frozenset({"y", "t", "p", "A", "n", "r", "e", "escape", "ctrl+c"})
SCROLL_KEYS = frozenset({"up", "down", "pageup", "pagedown", "home", "end"})

KeyPair = tuple[str, str]
_KEY_STYLE = "bold reverse"


def default_prefix(command: str) -> str | None:
    """The prefix offered for a command: its program's name (the person may add words).

    None when no prefix rule could match the command (shell operators, several lines, a
    program not known to be safe for a prefix rule, an option that runs a command):
    ``no_prefix_reason`` says why.
    """
    words = command_words(command)
    if not words or command_refusal(command) is not None:
        return None
    return shlex.join(words[:1])


def no_prefix_reason(command: object) -> str:
    """Why ``default_prefix`` offers nothing for this run_command argument (shown on ``p``)."""
    if not isinstance(command, str):
        return "a prefix rule never matches a command with shell operators or several lines"
    return command_refusal(command) or "no prefix rule fits this command"


def prefix_rule(text: str, arguments: Mapping[str, Any]) -> AllowCommandPrefix | str:
    """The prefix rule ``text`` spells, or why it cannot be kept for this call."""
    try:
        rule = AllowCommandPrefix.parse(text)
    except ValueError as exc:  # RuleError, or shlex on a quote it cannot close
        return str(exc)
    if not rule.matches(SHELL_TOOL, arguments):
        command = arguments.get("command")
        if isinstance(command, str) and prefix_matches(rule.words, command):
            return no_prefix_reason(command)
        return f"this command does not start with: {rule.text}"
    return rule


def key_pairs(mode: str, *, kept: Rule | None, prefix: bool, rest: bool) -> list[KeyPair]:
    """The keys that work in ``mode``, each with what it does."""
    if mode == "reason":
        return [("enter", "deny with this reason"), ("esc", "back")]
    if mode == "prefix":
        return [("enter", "keep this rule and approve"), ("esc", "back")]
    if mode == "edit":
        return [("ctrl+s", "review the change, then run"), ("esc", "back")]
    pairs = [("y", "approve once")]
    if kept is not None:
        pairs.append(("t", _short(kept)))
    if prefix:
        pairs.append(("p", "allow a command prefix…"))
    if rest:
        pairs.append(("A", "approve the rest of this turn"))
    return [
        *pairs,
        ("n", "deny"),
        ("r", "deny with a reason"),
        ("e", "edit"),
        ("esc", "cancel the turn"),
        ("↑↓ pgup pgdn", "scroll"),
    ]


def below_words(count: int) -> str:
    """What the line of keys says while ``count`` rows of the call are below the visible ones."""
    if count == 1:
        return "1 more line below — scroll to see it"
    return f"{count} more lines below — scroll to see them"


class KeyHints(Widget):
    """The line of keys, wrapped between pairs (never inside one); "…" leads it while arming;
    a note above it says why the keys do not work yet (the prompt waits for a pause in typing);
    while rows of the call are below the visible ones, the keys' row starts by saying how many."""

    DEFAULT_CSS = """
    KeyHints { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pairs: list[KeyPair] = []
        self._arming = False
        self._note = ""
        self._below = 0
        self._message: Text | None = None

    def show_keys(self, pairs: list[KeyPair], *, arming: bool, note: str = "") -> None:
        shown = (pairs, arming, note, None)
        if shown == (self._pairs, self._arming, self._note, self._message):
            return
        self._pairs, self._arming, self._note, self._message = pairs, arming, note, None
        self.refresh(layout=True)

    def show_below(self, count: int) -> None:
        """Say that ``count`` rows of the call are below the visible ones (0: say nothing)."""
        if count != self._below:
            self._below = count
            self.refresh(layout=True)

    def show_message(self, message: Text) -> None:
        self._message = message
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Textual caches a widget's height by width alone; the lines here change with the keys
        # and the note at one width, so they are counted afresh (a stale count left empty rows
        # under the keys when the first layout came before the prompt's width was known).
        return len(self._text(width).wrap(self.app.console, max(width, 1)))

    def render(self) -> Text:
        return self._text(self.size.width)

    def _text(self, width: int) -> Text:
        if self._message is not None:
            return self._message
        width = max(width, 20)
        line = Text.assemble((self._note, "bold"), "\n") if self._note else Text()
        line.append("…" if self._arming else "")
        current = 1 if self._arming else 0  # cells on the line being filled
        items = [Text(below_words(self._below), "bold")] if self._below else []
        items += [
            Text.assemble((f" {key} ", _KEY_STYLE), " ", safe_text(label))
            for key, label in self._pairs
        ]
        for pair in items:
            if current and current + 2 + pair.cell_len > width:
                line.append("\n")
                current = 0
            elif current:
                line.append("  ")
                current += 2
            line.append_text(pair)
            current += pair.cell_len
        return line


def describe_decision(decision: Decision) -> Text:
    """One line saying what was decided, shown on the prompt once it is resolved."""
    if decision.kind == "approve":
        text = "approved"
        if decision.remember is not None:
            text += f"; keeps: {decision.remember.describe()}"
        if decision.approve_rest:
            text += ", with the rest of this turn"
    elif decision.kind == "deny":
        text = f"denied: {decision.reason}" if decision.reason else "denied"
    elif decision.kind == "edit":
        text = "edited arguments sent for validation"
    else:
        text = "turn cancelled"
    return safe_text(text, one_line=True)


def _short(rule: Rule) -> str:
    if isinstance(rule, AllowCommand):
        return "always allow this exact command"
    return rule.describe()
