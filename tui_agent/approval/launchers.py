"""Programs a command prefix rule must not cover: those that run code or a command given inline.

A prefix rule trusts a program with any arguments that follow. For an interpreter or a launcher
the arguments *are* the program: ``bash`` as a prefix allows ``bash -c 'anything; at all'``, and
``env``, ``xargs``, ``sudo`` or ``timeout`` allow whatever command follows them. So:

- ``LAUNCHERS``: no prefix rule may start with one of these programs, whatever words follow.
  The first word is compared after dropping its folder (``/usr/bin/env``), its case (a
  case-insensitive file system runs ``BASH`` as ``bash``) and a version suffix (``python3.12``).
- A prefix that starts with a variable assignment (``PAGER=x git``) is refused: the program is
  then a later word, and the variable can itself name a command.
- ``git``: a prefix must name one of ``GIT_SUBCOMMANDS`` (``git -c alias.x='!sh -c ...' x`` and
  ``git rebase --exec`` run code), and a command never matches while any word is a long option
  that runs a command or writes a file (``--output``, ``--exec``, ``--upload-pack``...), written
  whole or abbreviated as git accepts.
- ``find``, ``fd``, ``rg``, ``tar``, ``rsync``, ``sort``, ``zip``, ``wget``, ``scp``
  (``GUARDED_OPTIONS``): a prefix may name them, but a command never matches while it holds
  one of the options that run a command or write a chosen file (``-exec``, ``-delete``,
  ``--pre``, ``--to-command``...).

Refusing is always safe: the worst a refusal does is ask the user once more. The check runs
when a rule is made (offered, typed, read from config.toml) and again at every match.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

_SHELLS = (
    "sh bash zsh dash ksh mksh pdksh oksh loksh yash posh ash rbash csh tcsh fish elvish nu "
    "xonsh pwsh powershell cmd busybox toybox"
)
_INTERPRETERS = (
    "python pythonw pypy ipython jupyter node nodejs deno bun perl ruby irb jruby php lua luajit "
    "tclsh wish expect rscript r julia ghc ghci runghc runhaskell scala groovy jshell kotlin "
    "kotlinc swift ocaml erl escript elixir iex racket guile sbcl clisp gst osascript awk gawk "
    "mawk nawk sed gsed ed ex vi vim nvim view emacs m4 dc gdb lldb sqlite3 psql mysql"
)
# Run the command given after them (or as an option), often after changing how it runs.
_WRAPPERS = (
    "env xargs parallel sudo doas su runuser pkexec sg newgrp nohup timeout nice renice ionice "
    "stdbuf time watch setsid chroot unshare nsenter flock taskset chrt numactl cgexec "
    "systemd-run firejail bwrap proot fakeroot fakechroot script unbuffer rlwrap strace ltrace "
    "valgrind perf catchsegv caffeinate entr at batch crontab ssh rsh mosh tmux screen dtach "
    "chpst setpriv capsh man busybox"
)
# Run a command, a script or a task given inline (or whatever the project's files say).
_RUNNERS = (
    "npx pnpx bunx uvx pipx npm pnpm yarn uv poetry pipenv conda mamba hatch pdm rye tox nox "
    "cargo go dotnet make gmake bmake cmake just rake bundle docker podman kubectl nix nix-shell "
    "direnv mise asdf"
)
# Shell reserved words and builtins that run, source or evaluate their arguments (bash, which
# may be /bin/sh, evaluates array subscripts in the arguments of the arithmetic builtins).
_SHELL_WORDS = (
    "eval exec command builtin source . trap coproc ! { ( if then else elif case for select while "
    "until do function [[ enable fc let declare typeset local export readonly printf read test [ "
    "unset mapfile readarray"
)

LAUNCHERS = frozenset(" ".join((_SHELLS, _INTERPRETERS, _WRAPPERS, _RUNNERS, _SHELL_WORDS)).split())

# The git subcommands a prefix rule may name: none runs a command given in its arguments.
_GIT_SUBCOMMANDS = (
    "status diff log show blame shortlog describe rev-parse ls-files ls-tree reflog show-ref "
    "for-each-ref merge-base add commit restore switch checkout branch tag stash mv rm"
)
GIT_SUBCOMMANDS = frozenset(_GIT_SUBCOMMANDS.split())
# Long options that run a command or write a chosen file.
_GIT_OPTIONS = (
    "--output",
    "--output-directory",
    "--open-files-in-pager",
    "--exec",
    "--extcmd",
    "--upload-pack",
    "--receive-pack",
    "--config-env",
    "--exec-path",
    "--tool",
)
_FD_OPTIONS = ("-x", "--exec", "-X", "--exec-batch")
_TAR_OPTIONS = (
    "--to-command",
    "-I",
    "--use-compress-program",
    "--checkpoint-action",
    "--info-script",
    "-F",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
)
# Options that make an otherwise plain program run a command or write a file it is told to.
GUARDED_OPTIONS: dict[str, tuple[str, ...]] = {
    "git": _GIT_OPTIONS,
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf"),
    "fd": _FD_OPTIONS,
    "fdfind": _FD_OPTIONS,
    "rg": ("--pre",),
    "tar": _TAR_OPTIONS,
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "sort": ("--compress-program", "-o", "--output"),
    "zip": ("-TT", "--unzip-command"),
    "wget": ("--use-askpass",),
    "scp": ("-S", "-o", "-F"),
}
# find's actions are single-dash words, matched whole (-fls too).
_FIND_ACTIONS = frozenset((*GUARDED_OPTIONS["find"], "-fls"))

_VERSION = re.compile(r"[0-9][0-9._-]*$")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def program_name(word: str) -> str:
    """The program a command's first word runs, as compared against the lists above."""
    name = os.path.basename(word.rstrip("/")).lower() or word
    return _VERSION.sub("", name) or name


def prefix_refusal(words: Sequence[str]) -> str | None:
    """Why no prefix rule may start with ``words``, or None when one may."""
    if not words:
        return None
    if _ASSIGNMENT.match(words[0]):
        return (
            f"a prefix rule cannot start with a variable assignment ({words[0]}): the variable "
            "can name a command, and the program is a later word"
        )
    program = program_name(words[0])
    if program in LAUNCHERS:
        return (
            f"{words[0]} runs code or a command given in its arguments, so a prefix rule for it "
            "would allow anything; approve the exact command instead"
        )
    if program == "git" and (len(words) < 2 or words[1] not in GIT_SUBCOMMANDS):
        return (
            "a git prefix rule must name one of these subcommands: "
            f"{', '.join(sorted(GIT_SUBCOMMANDS))} (other subcommands, aliases and options "
            "before the subcommand such as -c can run a command)"
        )
    return guarded_option(words)


def guarded_option(words: Sequence[str]) -> str | None:
    """Why a command's words hold an option that runs a command or writes a file, or None."""
    if not words:
        return None
    program = program_name(words[0])
    guarded = GUARDED_OPTIONS.get(program)
    if guarded is None:
        return None
    arguments = list(words[1:])
    if program == "tar" and arguments and not arguments[0].startswith("-"):
        arguments[0] = "-" + arguments[0]  # tar's old style: "tar xIf ..." bundles options
    for word in arguments:
        if program == "find":
            hit = word in _FIND_ACTIONS
        else:
            hit = any(_is_option(word, option) for option in guarded)
        if hit:
            return (
                f"{word} makes {words[0]} run a command or write a file it names, so no prefix "
                "rule covers this command"
            )
    return None


def _is_option(word: str, option: str) -> bool:
    """``word`` sets ``option``: whole, abbreviated as getopt_long and git accept (long
    options), or alone, with its value attached or bundled with others (short options)."""
    if option.startswith("--"):
        name = word.split("=", 1)[0]
        return name.startswith("--") and len(name) >= 3 and option.startswith(name)
    if len(option) == 2:
        return word.startswith("-") and not word.startswith("--") and option[1] in word[1:]
    return word == option or word.startswith(option + "=")
