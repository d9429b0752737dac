"""Compound-command detection and prefix matching: the guard in front of prefix rules."""

from __future__ import annotations

import random
import shlex
import shutil
import subprocess

import pytest

from tui_agent.approval import command_words, is_compound_command

COMPOUND = [
    "git status; rm -rf /",
    "git status && rm x",
    "git status || rm x",
    "sleep 1 &",
    "git status & rm x",
    "git log | sh",
    "git log |& sh",
    "cat < /etc/passwd",
    "echo x > file",
    "echo x >> file",
    "make 2>&1",
    "echo x &> file",
    "echo x >| file",
    "cat <<EOF",
    "cat <<< word",
    "echo $(rm -rf /)",
    "echo `rm -rf /`",
    "diff <(ls a) <(ls b)",
    "tee >(sh)",
    "(cd / && rm x)",
    "{ rm x; }",
    "git status\nrm -rf /",
    "git status\rrm -rf /",
    "git status\r\n",
    "echo ${x@P}",
    "echo $'\\x3b'",
    'echo $"text"',
    "echo $((1+2))",
    'echo "a',  # unbalanced quotes: we cannot tell where words end
    "echo 'a",
    "echo a\\",  # a trailing backslash continues onto an unseen line
    "echo \x00",
    "echo \x1b[31m",
    "echo \x7f",
    'echo "$(rm -rf /)"',  # substitution runs inside double quotes
    'echo "`rm -rf /`"',
    'echo "${x}"',
    "git status # ; comments are not trusted either",
    "git status #comment",  # the shell drops words that shlex would count
    'echo "\\$HOME"',  # inside "...", the shell drops this backslash and shlex keeps it
    'echo "\\`"',
]

SIMPLE = [
    "git status",
    "git status --short",
    "ls -la src",
    "echo 'a;b|c&d>e<f(g)h`i$(j)'",  # single quotes: everything literal
    'echo "a;b|c&d>e<f(g)h"',  # double quotes: operators literal
    "find . -name x -exec ls {} \\;",  # an escaped operator is literal
    "echo a\\|b",
    "echo $HOME",
    'echo "$HOME"',
    'echo "a\\"b;c"',
    "git commit -m 'fix: a; b'",
    "echo\ttab",
    "git log --format=#%h",  # "#" inside a word is not a comment
    "",
]


@pytest.mark.parametrize("cmd", COMPOUND)
def test_compound(cmd: str) -> None:
    assert is_compound_command(cmd)
    assert command_words(cmd) is None


@pytest.mark.parametrize("cmd", SIMPLE)
def test_simple(cmd: str) -> None:
    assert not is_compound_command(cmd)
    assert command_words(cmd) is not None


def test_words_follow_shell_quoting() -> None:
    assert command_words("git commit -m 'fix: a; b'") == ["git", "commit", "-m", "fix: a; b"]
    assert command_words("'git' \"status\"") == ["git", "status"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_simple_commands_mean_the_same_words_to_bash() -> None:
    """Random strings of metacharacters: whenever we call one simple, bash sees shlex's words."""
    pieces = [*"ab ;&|<>()`'\"\\#\t", "$(", "${", "$'"]
    rng = random.Random(7)
    samples = {"".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(40000)}
    simple = sorted(cmd for cmd in samples if not is_compound_command(cmd))
    assert len(simple) > 300
    script = "".join(f"printf '%s\\0' {cmd}; printf '\\1'\n" for cmd in simple)
    done = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, check=False)
    outputs = done.stdout.split(b"\x01")[:-1]
    assert len(outputs) == len(simple)
    for cmd, output in zip(simple, outputs, strict=True):
        words = [word.decode() for word in output.split(b"\0")[:-1]]
        expected = shlex.split(cmd) or [""]  # printf with no arguments prints one empty string
        assert words == expected, cmd
