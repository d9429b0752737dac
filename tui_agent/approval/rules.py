"""Rules the user chose to keep: which tool calls no longer need a question.

``run_command`` is never allowed as a whole tool: pressing "t" on it remembers the exact command
line (``AllowCommand``), and a prefix rule (``AllowCommandPrefix``) covers a simple command starting
with the given words. A prefix rule may only name a program known not to run code from its
arguments, environment or files (``launchers``): any other is refused when made, and never
matches even if one is built around that check. Use approval mode ``auto-all`` to allow every
command. For ``web_fetch`` "t" remembers the URL's host (``AllowFetchHost``), not every host.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .launchers import command_refusal, prefix_refusal
from .shell_words import is_compound_command, prefix_matches

SHELL_TOOL = "run_command"
COMMAND_ARGUMENT = "command"  # the run_command argument that holds the command line
FETCH_TOOL = "web_fetch"
URL_ARGUMENT = "url"


class RuleError(ValueError):
    """A rule that cannot be kept, with the reason written for the user."""


@dataclass(frozen=True)
class AllowTool:
    """Every call of one tool (any tool but run_command)."""

    name: str

    def __post_init__(self) -> None:
        if not self.name:
            raise RuleError("a tool rule needs a tool name")
        if self.name == SHELL_TOOL:
            raise RuleError(
                f"{SHELL_TOOL} cannot be allowed as a whole: allow an exact command or a command "
                "prefix instead, or switch to approval mode auto-all"
            )

    def describe(self) -> str:
        return f"always allow {self.name}"

    def matches(self, tool_name: str, arguments: Mapping[str, Any]) -> bool:
        return tool_name == self.name


@dataclass(frozen=True)
class AllowCommand:
    """run_command with exactly this command line (byte for byte, whitespace included)."""

    command: str

    def __post_init__(self) -> None:
        if not self.command.strip():
            raise RuleError("a command rule needs a command")

    def describe(self) -> str:
        return f"always allow {SHELL_TOOL} for exactly this command: {self.command}"

    def matches(self, tool_name: str, arguments: Mapping[str, Any]) -> bool:
        return tool_name == SHELL_TOOL and arguments.get(COMMAND_ARGUMENT) == self.command


@dataclass(frozen=True)
class AllowCommandPrefix:
    """run_command with a simple command (no chaining, pipes, redirection) starting with words."""

    words: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.words or not all(self.words):
            raise RuleError("a command prefix rule needs at least one non-empty word")
        if is_compound_command(self.text):
            raise RuleError(
                f"the command prefix {self.text!r} contains shell operators; a prefix must be "
                "plain words such as: git status"
            )
        refusal = prefix_refusal(self.words)
        if refusal is not None:
            raise RuleError(refusal)

    @classmethod
    def parse(cls, text: str) -> AllowCommandPrefix:
        """A prefix from its shell-quoted text, as written in config.toml (``"git diff"``)."""
        if is_compound_command(text):
            raise RuleError(
                f"the command prefix {text!r} contains shell operators; a prefix must be "
                "plain words such as: git status"
            )
        return cls(tuple(shlex.split(text)))

    @property
    def text(self) -> str:
        """The words, shell-quoted so that ``parse`` gives them back."""
        return shlex.join(self.words)

    def describe(self) -> str:
        return f"always allow {SHELL_TOOL} when the command starts with: {self.text}"

    def matches(self, tool_name: str, arguments: Mapping[str, Any]) -> bool:
        command = arguments.get(COMMAND_ARGUMENT)
        if tool_name != SHELL_TOOL or not isinstance(command, str):
            return False
        if not prefix_matches(self.words, command) or prefix_refusal(self.words) is not None:
            return False
        # Checked again here, whatever made the rule: an option that runs a command never matches.
        return command_refusal(command) is None


@dataclass(frozen=True)
class AllowFetchHost:
    """web_fetch of any URL on this host (by name as the URL writes it, lower case; any scheme
    and port): what "always allow" keeps for web_fetch, rather than every host."""

    host: str

    def __post_init__(self) -> None:
        if not self.host or self.host != self.host.strip().lower() or "/" in self.host:
            raise RuleError("a web_fetch rule needs a host name in lower case: docs.example")

    def describe(self) -> str:
        return f"always allow {FETCH_TOOL} from the host {self.host}"

    def matches(self, tool_name: str, arguments: Mapping[str, Any]) -> bool:
        url = arguments.get(URL_ARGUMENT)
        return tool_name == FETCH_TOOL and isinstance(url, str) and url_host(url) == self.host


def url_host(url: str) -> str | None:
    """The host a URL names, lower case (None when it names none)."""
    try:
        return urlsplit(url).hostname or None
    except ValueError:
        return None


Rule = AllowTool | AllowCommand | AllowCommandPrefix | AllowFetchHost


def rule_for_call(tool_name: str, arguments: Mapping[str, Any]) -> Rule:
    """The rule the "always allow this tool" key keeps: for run_command, this exact command;
    for web_fetch, this URL's host."""
    if tool_name == SHELL_TOOL:
        command = arguments.get(COMMAND_ARGUMENT)
        if not isinstance(command, str):
            raise RuleError(f"this {SHELL_TOOL} call has no command to remember")
        return AllowCommand(command)
    if tool_name == FETCH_TOOL:
        url = arguments.get(URL_ARGUMENT)
        host = url_host(url) if isinstance(url, str) else None
        if host is None:
            raise RuleError(f"this {FETCH_TOOL} call names no host to remember")
        return AllowFetchHost(host)
    return AllowTool(tool_name)


class SessionRules:
    """The rules in force for this session, in the order they were added."""

    def __init__(self, rules: Iterable[Rule] = ()) -> None:
        self._rules: list[Rule] = []
        for rule in rules:
            self.add(rule)

    def add(self, rule: Rule) -> None:
        """Keep ``rule`` (a rule already kept is not added twice)."""
        if rule not in self._rules:
            self._rules.append(rule)

    def revoke(self, rule: Rule) -> bool:
        """Drop ``rule``; False if it was not kept."""
        try:
            self._rules.remove(rule)
        except ValueError:
            return False
        return True

    def rules(self) -> list[Rule]:
        """A copy of the rules, oldest first (for listing them to the user)."""
        return list(self._rules)

    def matching(self, tool_name: str, arguments: Mapping[str, Any]) -> Rule | None:
        """The first rule that allows this call, or None."""
        for rule in self._rules:
            if rule.matches(tool_name, arguments):
                return rule
        return None
