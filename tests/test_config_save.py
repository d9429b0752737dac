"""Saving approval rules: only the [approval] table changes; the file stays private."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from tui_agent.approval import AllowCommand, AllowCommandPrefix, AllowTool, ApprovalMode
from tui_agent.config import (
    ConfigFileError,
    forget_rule,
    load_config,
    remember_rule,
    save_approval_rules,
)

BEFORE = """\
# My tui-agent config.   Odd   spacing is kept.
default_profile = "gpt"

[settings]
idle_timeout = 120  # slow proxy

[approval]
mode = "auto-read" # old comment, replaced
allowed_tools = ["read_file"]
allowed_commands = [
  "git status",
  # a comment inside the table: lost
]

# The profile I use most.
[profiles.gpt]
protocol = "openai-responses"
model = "gpt-5"
system_prompt = '''
[approval]
not a header: inside a string
'''

[[tools]]
name = "wc"
description = "Count words."
program = "wc"
"""

AFTER = """\
# My tui-agent config.   Odd   spacing is kept.
default_profile = "gpt"

[settings]
idle_timeout = 120  # slow proxy

[approval]
mode = "auto-read"
allowed_tools = [
    "read_file",
]
allowed_commands = [
    "git status",
]
allowed_command_prefixes = [
    "grep -n",
]

# The profile I use most.
[profiles.gpt]
protocol = "openai-responses"
model = "gpt-5"
system_prompt = '''
[approval]
not a header: inside a string
'''

[[tools]]
name = "wc"
description = "Count words."
program = "wc"
"""


def test_only_the_approval_table_changes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BEFORE, encoding="utf-8")
    remember_rule(path, AllowCommandPrefix(("grep", "-n")))
    assert path.read_text(encoding="utf-8") == AFTER
    assert load_config(path).approval.rules()[-1] == AllowCommandPrefix(("grep", "-n"))


def test_remember_is_idempotent_and_forget_removes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BEFORE, encoding="utf-8")
    remember_rule(path, AllowTool("read_file"))  # already saved: file untouched
    assert path.read_text(encoding="utf-8") == BEFORE
    assert forget_rule(path, AllowCommand("git status")) is True
    assert forget_rule(path, AllowCommand("git status")) is False
    config = load_config(path)
    assert config.approval.rules() == [AllowTool("read_file")]
    assert config.approval.mode is ApprovalMode.AUTO_READ  # kept
    assert config.profiles["gpt"].system_prompt == "[approval]\nnot a header: inside a string\n"


def test_table_is_appended_when_absent(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = '[profiles.local]\nprotocol = "openai-chat"  # no newline at end'
    path.write_text(original, encoding="utf-8")
    save_approval_rules(path, [AllowTool("list_dir")], mode=ApprovalMode.AUTO_ALL)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(original + "\n\n[approval]\n")
    config = load_config(path)
    assert config.approval.mode is ApprovalMode.AUTO_ALL
    assert config.approval.rules() == [AllowTool("list_dir")]
    assert config.profiles["local"].protocol == "openai-chat"


def test_missing_file_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "new-dir" / "config.toml"
    save_approval_rules(path, [AllowCommand("make test")])
    assert path.read_text(encoding="utf-8") == (
        '[approval]\nmode = "ask"\nallowed_tools = []\n'
        'allowed_commands = [\n    "make test",\n]\nallowed_command_prefixes = []\n'
    )
    if sys.platform != "win32":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_existing_file_becomes_private(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    path.chmod(0o644)
    save_approval_rules(path, [])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_a_symlinked_config_keeps_its_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "config.toml"
    real.parent.mkdir()
    real.write_text('default_profile = "demo"\n', encoding="utf-8")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    remember_rule(link, AllowTool("read_file"))
    assert link.is_symlink()
    assert 'allowed_tools = [\n    "read_file",\n]' in real.read_text(encoding="utf-8")


def test_crlf_files_stay_crlf(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'default_profile = "demo"\r\n\r\n[approval]\r\nmode = "ask"\r\n')
    remember_rule(path, AllowTool("read_file"))
    raw = path.read_bytes()
    assert raw.startswith(b'default_profile = "demo"\r\n\r\n[approval]\r\nmode = "ask"\r\n')
    assert b"\n" not in raw.replace(b"\r\n", b"")


def test_awkward_strings_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    command = 'printf "%s\\n" \'a\tb\' \x7f "quote" \u2028 é'
    save_approval_rules(path, [AllowCommand(command), AllowCommandPrefix(("echo", "two words"))])
    rules = load_config(path).approval.rules()
    assert rules == [AllowCommand(command), AllowCommandPrefix(("echo", "two words"))]


def test_unsavable_text_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(ConfigFileError, match="cannot save approval rules"):
        save_approval_rules(path, [AllowCommand("echo \ud800")])
    assert not path.exists()


def test_a_broken_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[settings\n", encoding="utf-8")
    with pytest.raises(ConfigFileError, match="not valid TOML: line 1"):
        remember_rule(path, AllowTool("read_file"))
    assert path.read_text(encoding="utf-8") == "[settings\n"


def test_approval_as_dotted_keys_is_left_for_the_user(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = 'approval.mode = "auto-read"\n\n[settings]\nidle_timeout = 30\n'
    path.write_text(original, encoding="utf-8")
    with pytest.raises(ConfigFileError) as caught:
        remember_rule(path, AllowTool("read_file"))
    message = str(caught.value)
    assert "could not update the [approval] table" in message
    assert 'allowed_tools = [\n    "read_file",\n]' in message
    assert path.read_text(encoding="utf-8") == original


def test_multiline_arrays_and_strings_before_the_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = (
        "[profiles.p]\n"
        'protocol = "openai-chat"\n'
        "options = { stop = [\n"
        '  "[approval]",\n'
        "] }\n"
        'system_prompt = """\n'
        '[approval]\n""""\n'
        "\n"
        "[approval]\n"
        'mode = "ask"\n'
    )
    path.write_text(original, encoding="utf-8")
    save_approval_rules(path, [AllowTool("grep")])
    text = path.read_text(encoding="utf-8")
    assert text.startswith(original.removesuffix('[approval]\nmode = "ask"\n'))
    config = load_config(path)
    assert config.profiles["p"].system_prompt == '[approval]\n"'
    assert config.approval.rules() == [AllowTool("grep")]


def test_a_failed_write_leaves_the_old_file_and_no_debris(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('default_profile = "demo"\n', encoding="utf-8")

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(ConfigFileError, match=r"cannot write config file .*: Permission denied"):
        remember_rule(path, AllowTool("read_file"))
    assert path.read_text(encoding="utf-8") == 'default_profile = "demo"\n'
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]
