"""`tui-agent parse` as a user runs it: a real process, files and pipes, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .fixture_cases import CASES, FixtureCase

CHAT = next(c for c in CASES if c.name == "openai-chat/openai-gpt4o-parallel-2calls-fragmented")
CUT = next(c for c in CASES if c.name == "anthropic/sonnet37-tool-use-truncated-max-tokens")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tui_agent", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("case", [CHAT, CUT], ids=lambda c: c.name)
def test_parse_file_prints_the_turn_and_exits_by_outcome(case: FixtureCase) -> None:
    done = run("parse", "--protocol", case.protocol, str(case.path))
    assert json.loads(done.stdout) == case.expected
    assert done.returncode == (0 if case.expected["outcome"] == "complete" else 2)
    assert done.stderr == b""


def test_parse_reads_standard_input() -> None:
    done = run("parse", "--protocol", CHAT.protocol, stdin=CHAT.body)
    assert done.returncode == 0
    assert json.loads(done.stdout) == CHAT.expected


def test_parse_empty_input_is_a_cut_turn() -> None:
    done = run("parse", "--protocol", "anthropic", stdin=b"")
    assert done.returncode == 2
    assert json.loads(done.stdout)["reason"] == "cut"


def test_parse_reads_bytes_as_they_arrive() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui_agent", "parse", "--protocol", CHAT.protocol],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None
    for i in range(0, len(CHAT.body), 7):
        proc.stdin.write(CHAT.body[i : i + 7])
        proc.stdin.flush()
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert json.loads(out) == CHAT.expected


def test_unknown_protocol_is_one_line_on_stderr() -> None:
    done = run("parse", "--protocol", "smoke-signals", str(CHAT.path))
    assert done.returncode == 1
    assert done.stdout == b""
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "unknown protocol" in lines[0] and "Traceback" not in lines[0]


def test_unreadable_file_is_one_line_on_stderr(tmp_path: Path) -> None:
    for target in (tmp_path / "missing.sse", tmp_path):
        done = run("parse", "--protocol", "openai-chat", str(target))
        assert done.returncode == 1
        lines = done.stderr.decode().strip().splitlines()
        assert len(lines) == 1 and "cannot read" in lines[0]


def test_output_escapes_terminal_control_characters(tmp_path: Path) -> None:
    from . import wire

    body = wire.chat([("text", "\x1b[2J\x1b]0;pwned\x07")], stop="stop")
    path = tmp_path / "evil.sse"
    path.write_bytes(body)
    done = run("parse", "--protocol", "openai-chat", str(path))
    assert b"\x1b" not in done.stdout and b"\x07" not in done.stdout
    assert json.loads(done.stdout)["text"] == "\x1b[2J\x1b]0;pwned\x07"


def test_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    done = subprocess.run(
        [sys.executable, "-m", "tui_agent", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"tui-agent {version('tui-agent')}"


def test_the_help_names_every_registered_protocol() -> None:
    from tui_agent.commands.parse import PROTOCOL_NAMES
    from tui_agent.providers import PROTOCOLS

    assert tuple(PROTOCOLS) == PROTOCOL_NAMES


def test_run_approve_choices_are_the_headless_modes() -> None:
    from tui_agent import cli
    from tui_agent.approval.approver import HEADLESS_MODES

    assert tuple(HEADLESS_MODES) == cli.RUN_APPROVE_CHOICES
