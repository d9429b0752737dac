"""Is a shell command one simple command, and does it start with given words?

Prefix rules are only safe for a single simple command: ``git status; rm -rf ~`` starts with
``git status`` too. The scanner below follows POSIX shell quoting closely enough to know when a
metacharacter is literal, and calls anything it is unsure of compound, so the worst a mistake can
do is ask the user once more.

Decisions:
- Quoted or backslash-escaped operators are literal: ``echo "a;b"``, ``echo 'a|b'`` and
  ``find . -exec ls {} \\;`` are simple. Inside double quotes ``$(``, ``${`` and backticks still
  expand, so they make a command compound, and so do ``\\$`` and ``\\```, whose backslash the
  shell drops but shlex keeps (the words would differ).
- ``${...}`` is treated as compound because some expansions (``${x@P}``) can run commands;
  a plain ``$NAME`` is not.
- ``$'...'`` and ``$"..."`` quoting is treated as compound: its escape rules differ from ``'...'``.
- An unquoted ``#`` that starts a word (a comment) is treated as compound.
- Newlines, carriage returns and other control characters (except tab) are compound anywhere,
  even inside quotes: a second line is a second command, and a hidden one misleads the reader.
"""

from __future__ import annotations

import shlex

_OPERATORS = frozenset(";&|<>()`")
_SUBSTITUTION_OPENERS = frozenset("({'\"")  # after "$": $( ${ $' $"


def _is_control(char: str) -> bool:
    code = ord(char)
    return (code < 0x20 and char != "\t") or code == 0x7F


def is_compound_command(cmd: str) -> bool:
    """True unless ``cmd`` is certainly one simple command with no redirection or substitution."""
    if any(_is_control(char) for char in cmd):
        return True
    quote: str | None = None  # the open quote character, if any
    i = 0
    while i < len(cmd):
        char = cmd[i]
        if quote == "'":
            if char == "'":
                quote = None
        elif char == "\\":
            if i + 1 >= len(cmd):
                return True  # a trailing backslash continues onto a line we cannot see
            if quote == '"' and cmd[i + 1] in "$`":
                return True  # the shell drops this backslash, shlex keeps it: words would differ
            i += 1  # the escaped character is literal (inside "..." too, or harmlessly so)
        elif char == "`" or (char == "$" and cmd[i + 1 : i + 2] in _SUBSTITUTION_OPENERS):
            return True  # substitution expands inside double quotes too
        elif quote == '"':
            if char == '"':
                quote = None
        elif char in "'\"":
            quote = char
        elif char in _OPERATORS:
            return True
        elif char == "#" and (i == 0 or cmd[i - 1] in " \t"):
            return True  # a comment hides words from the shell that shlex would still count
        i += 1
    return quote is not None  # an unbalanced quote: we cannot tell where words end


def command_words(cmd: str) -> list[str] | None:
    """The words of a simple command as the shell would see them, or None if it is compound."""
    if is_compound_command(cmd):
        return None
    try:
        return shlex.split(cmd)
    except ValueError:  # the scanner and shlex should agree; if not, refuse
        return None


def prefix_matches(prefix_words: list[str] | tuple[str, ...], cmd: str) -> bool:
    """True when ``cmd`` is a simple command whose first words are exactly ``prefix_words``."""
    if not prefix_words:
        return False  # an empty prefix would allow every command
    words = command_words(cmd)
    if words is None or len(words) < len(prefix_words):
        return False
    return words[: len(prefix_words)] == list(prefix_words)


_GLOB_OR_BRACE = frozenset("*?[{")


def expanding_characters(cmd: str) -> list[str]:
    """The characters by which the shell could make of ``cmd`` words not written in it: an
    unquoted glob or brace (a file named ``-exec`` matches ``*``; ``{-exec,x}`` is two words),
    and ``$`` outside single quotes. Each once, in order of first appearance."""
    found: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(cmd):
        char = cmd[i]
        if quote == "'":
            if char == "'":
                quote = None
        elif char == "\\":
            i += 1  # the escaped character is literal
        elif char == "$" or (quote is None and char in _GLOB_OR_BRACE):
            if char not in found:
                found.append(char)
        elif char == '"' and quote == '"':
            quote = None
        elif quote is None and char in "'\"":
            quote = char
        i += 1
    return found
