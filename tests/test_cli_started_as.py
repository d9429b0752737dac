"""The hints that name a command (``to resume this session: ... -r ID``) name it as it was
started: the bare name only when PATH finds that very program."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tui_agent.commands.output import started_as


def _program(folder: Path) -> Path:
    folder.mkdir(parents=True)
    program = folder / "tui-agent"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    return program


def test_a_venv_program_not_on_path_is_named_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = _program(tmp_path / ".venv" / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.chdir(tmp_path)
    assert started_as(".venv/bin/tui-agent") == ".venv/bin/tui-agent"
    assert started_as(str(program)) == str(program)


def test_the_program_path_finds_is_named_bare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = _program(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert started_as(str(program)) == "tui-agent"
    assert started_as("tui-agent") == "tui-agent"


def test_another_tui_agent_on_path_does_not_hide_the_one_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _program(tmp_path / "bin")
    started = _program(tmp_path / "elsewhere" / "my folder")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert started_as(str(started)) == shlex.quote(str(started))


def test_python_m_is_named_as_such() -> None:
    assert started_as("/some/where/tui_agent/__main__.py") == f"{sys.executable} -m tui_agent"
