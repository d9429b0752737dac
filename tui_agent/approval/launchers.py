"""Which programs a command prefix rule may name: an allowlist, decided by what each can do.

A prefix rule trusts a program with any arguments that follow. For most programs that is far
more than it looks: a launcher runs the command after it (``prlimit ... sh -c``, ``ssh-agent
sh``, ``run-parts DIR``), an interpreter runs code in its arguments, and a build tool, test
runner or package manager runs code from the project's own files (a planted ``conftest.py``, a
``Makefile``, a package script), which a command can write. So the list is not of programs to
refuse, which always misses one, but of programs a prefix rule may name (``PREFIX_PROGRAMS``):
each only reads and prints, and none runs a program or code named in its arguments, its
environment or the files it reads, except through the options listed with it. Anything else
is refused, with the reason shown where the rule is made (the approval prompt's prefix field,
config.toml's load error). Refusing is always safe: the worst it does is ask once more.

- The first word must be the program's bare name, exactly as listed: a path (``/usr/bin/x``,
  ``./ls``) can lead to any file, a script the agent wrote or a multi-call binary such as
  busybox; ``LS`` or ``ls2`` are not ``ls``; a variable assignment, ``command``, ``exec`` or
  ``env`` before the program are not on the list either.
- ``git`` gets no prefix rule: every subcommand can run a program named in the repository's
  own ``.git/config`` (``core.fsmonitor`` for ``status`` and ``ls-files``, ``diff.external``,
  textconv and clean filters, hooks, aliases), and a command can write that file.
- A listed program's options that run a command or write a chosen file (``find -exec``,
  ``rg --pre``, ``sort -o``) are checked at every match, written whole or abbreviated as
  getopt_long accepts; for these programs a command never matches while a word could expand
  into such an option (an unquoted glob or brace, or a ``$`` expansion: a file named
  ``-exec`` is one glob away).
- No command matches while ``PATH`` holds an empty or relative folder, nor (``shadowing_folder``)
  while it holds a folder of the workspace (a virtualenv's ``bin`` in it): the workspace's own
  files would then take the place of the listed programs or of the helpers they run by name.

The check runs when a rule is made (offered, typed, read from config.toml) and again at every
match. ``LAUNCHERS`` only chooses the words of the reason for well-known programs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from .shell_words import command_words, expanding_characters

_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0")
_FD_OPTIONS = ("-x", "--exec", "-X", "--exec-batch")
_PLAIN = (
    "ls cat head tail wc nl tac grep egrep fgrep cut tr paste column comm cmp diff "
    "stat du df basename dirname realpath readlink md5sum sha1sum sha256sum sha512sum b2sum "
    "cksum echo pwd uname whoami id date which"
)
# The programs a prefix rule may name, each with the options that make it run a command or
# write a file it is told to (none for the plain ones). ``echo`` and ``pwd`` are /bin/sh's own.
PREFIX_PROGRAMS: Mapping[str, tuple[str, ...]] = {
    **{name: () for name in _PLAIN.split()},
    "find": (*_FIND_ACTIONS, "-fprintf", "-fls"),
    "fd": _FD_OPTIONS,
    "fdfind": _FD_OPTIONS,
    "rg": ("--pre", "--hostname-bin"),
    "sort": ("--compress-program", "-o", "--output"),
}
_BUILTINS = frozenset({"echo", "pwd"})  # never looked up in PATH by /bin/sh

# Only for the reason's words: what the best-known refused programs do.
_SHELLS = (
    "sh bash zsh dash ksh mksh pdksh oksh loksh yash posh ash rbash csh tcsh fish elvish nu "
    "xonsh pwsh powershell cmd busybox toybox"
)
_INTERPRETERS = (
    "python pythonw pypy ipython jupyter node nodejs deno bun perl ruby irb jruby php lua luajit "
    "tclsh wish expect rscript r julia ghc ghci runghc runhaskell scala groovy jshell kotlin "
    "kotlinc swift ocaml erl escript elixir iex racket guile sbcl clisp gst osascript awk gawk "
    "mawk nawk sed gsed ed ex vi vim nvim view emacs m4 dc gdb lldb sqlite3 psql mysql jq yq"
)
_WRAPPERS = (
    "env xargs parallel sudo doas su runuser pkexec sg newgrp nohup timeout nice renice ionice "
    "stdbuf time watch setsid chroot unshare nsenter flock taskset chrt numactl cgexec prlimit "
    "systemd-run firejail bwrap proot fakeroot fakechroot script unbuffer rlwrap strace ltrace "
    "valgrind perf catchsegv caffeinate entr at batch crontab ssh ssh-agent scp sftp rsh mosh "
    "tmux screen dtach chpst setpriv capsh man run-parts dbus-run-session dbus-launch xvfb-run "
    "startx xinit less more"
)
_RUNNERS = (
    "npx pnpx bunx uvx pipx npm pnpm yarn uv poetry pipenv conda mamba hatch pdm rye tox nox "
    "pip pip3 gem bundle composer apt apt-get dpkg cargo go dotnet make gmake bmake cmake ninja "
    "meson bazel bazelisk gradle gradlew mvn ant sbt just rake pytest py.test jest vitest mocha "
    "rspec phpunit ctest docker podman kubectl helm nix nix-shell direnv mise asdf pre-commit"
)
LAUNCHERS: Mapping[str, str] = {
    **{name: "is a shell: it runs the commands in its arguments" for name in _SHELLS.split()},
    **{name: "runs code given in its arguments" for name in _INTERPRETERS.split()},
    **{name: "runs the command given in its arguments" for name in _WRAPPERS.split()},
    **{
        name: "runs code from the project's own files (tests, build files, package scripts, "
        "plugins), which a command can write"
        for name in _RUNNERS.split()
    },
    "git": "runs programs named in the repository's own .git/config (core.fsmonitor for "
    "status, diff.external, filters, hooks, aliases), which a command can write",
}

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_VERSION = re.compile(r"[0-9][0-9._-]*$")


def program_name(word: str) -> str:
    """The program ``word`` most likely names, for the reason's words only (``/usr/bin/Python3``
    is python); what may be named is decided on the word itself."""
    name = os.path.basename(word.rstrip("/")).lower() or word
    return _VERSION.sub("", name) or name


def prefix_refusal(words: Sequence[str]) -> str | None:
    """Why no prefix rule may start with ``words``, or None when one may."""
    if not words:
        return None
    first = words[0]
    if _ASSIGNMENT.match(first):
        return (
            f"a prefix rule cannot start with a variable assignment ({first}): the variable "
            "can name a command, and the program is a later word"
        )
    if "/" in first:
        return (
            f"a prefix rule names a program without a folder, not {first}: a path can lead to "
            "any file, a script the agent wrote or a multi-call program such as busybox"
        )
    if first not in PREFIX_PROGRAMS:
        what = LAUNCHERS.get(program_name(first))
        if what is not None:
            return (
                f"{first} {what}, so a prefix rule for it would allow anything; approve the "
                "exact command instead"
            )
        return (
            f"{first} is not one of the programs a prefix rule may name (those that only read "
            f"and print: {', '.join(sorted(PREFIX_PROGRAMS))}): another program may run code "
            "from its arguments, its environment or the files it reads; approve the exact "
            "command instead"
        )
    return guarded_option(words)


def guarded_option(words: Sequence[str]) -> str | None:
    """Why a command's words hold an option that runs a command or writes a file, or None."""
    if not words:
        return None
    for word in words[1:]:
        if any(_is_option(word, option) for option in PREFIX_PROGRAMS.get(words[0], ())):
            return (
                f"{word} makes {words[0]} run a command or write a file it names, so no prefix "
                "rule covers this command"
            )
    return None


def command_refusal(command: str) -> str | None:
    """Why no prefix rule, whatever its words, may allow ``command``; None when one may."""
    words = command_words(command)
    if not words:
        return "a prefix rule never matches a command with shell operators or several lines"
    refusal = prefix_refusal(words[:1]) or guarded_option(words)
    if refusal is not None:
        return refusal
    if PREFIX_PROGRAMS[words[0]] and (chars := expanding_characters(command)):
        return (
            f"{' '.join(chars)} in this command could expand into an option that makes "
            f"{words[0]} run a command, so no prefix rule covers it; quote the pattern"
        )
    folders = os.environ.get("PATH", "").split(os.pathsep)
    if words[0] not in _BUILTINS and any(not os.path.isabs(folder) for folder in folders):
        return (
            "PATH holds an empty or relative folder, so a file in the workspace could take the "
            "place of the program; no prefix rule matches until PATH holds full paths only"
        )
    return None


def _is_option(word: str, option: str) -> bool:
    """``word`` sets ``option``: whole, abbreviated as getopt_long accepts (long options), or
    alone, with its value attached or bundled with others (short options)."""
    if option.startswith("--"):
        name = word.split("=", 1)[0]
        return name.startswith("--") and len(name) >= 3 and option.startswith(name)
    if len(option) == 2:
        return word.startswith("-") and not word.startswith("--") and option[1] in word[1:]
    return word == option or word.startswith(option + "=")


def shadowing_folder(program: str, workspace: str, search: str | None = None) -> str | None:
    """A folder of ``search`` (``PATH``) that is relative or inside ``workspace``: a command
    could put a program there that the shell, or a listed program running a helper by name
    (``rg -z`` runs ``gzip``, ``diff -l`` runs ``pr``), finds before the real one. None when
    there is none, or ``program`` is /bin/sh's own (``echo``, ``pwd``)."""
    if program in _BUILTINS:
        return None
    root = os.path.realpath(workspace).rstrip(os.sep) + os.sep
    for folder in (os.environ.get("PATH", "") if search is None else search).split(os.pathsep):
        if not os.path.isabs(folder):
            return folder or "(an empty entry)"
        if (os.path.realpath(folder).rstrip(os.sep) + os.sep).startswith(root):
            return folder
    return None
