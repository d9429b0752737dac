"""Reading config.toml: defaults, the XDG location, and every error naming file, line or key."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tui_agent.approval import AllowCommand, AllowCommandPrefix, AllowTool, ApprovalMode
from tui_agent.config import Config, ConfigFileError, default_config_path, load_config

EXAMPLE = """\
default_profile = "gpt"

[settings]
system_prompt = "Be brief."
idle_timeout = 120
max_tokens = 4096

[approval]
mode = "auto-read"
allowed_tools = ["read_file"]
allowed_commands = ["npm test"]
allowed_command_prefixes = ["grep -n", "ls -la --color"]

[profiles.gpt]
protocol = "openai-responses"
model = "gpt-5"
stateful = true
options = { reasoning = { effort = "low" } }

[profiles.local]
protocol = "openai-chat"
model = "qwen3"
base_url = "http://localhost:11434/v1/"

[[tools]]
name = "word_count"
description = "Count the words of a file."
program = "wc"
args = ["-w", "--", "{path}"]
[tools.parameters.path]
type = "string"
required = true
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigFileError) as caught:
        load_config(write(tmp_path, text))
    return str(caught.value)


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nope.toml")
    assert config == Config()
    assert config.settings.idle_timeout == 90
    assert config.settings.turn_deadline == 600
    assert config.settings.tool_output_cap == 64 * 1024
    assert config.settings.max_auto_steps == 25
    assert config.settings.max_tokens == 8192
    assert config.approval.mode is ApprovalMode.ASK
    assert config.profiles == {}


def test_example_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, EXAMPLE))
    assert config.default_profile == "gpt"
    assert config.settings.idle_timeout == 120.0
    assert config.settings.system_prompt == "Be brief."
    assert config.profiles["gpt"].stateful
    assert config.profiles["gpt"].options == {"reasoning": {"effort": "low"}}
    assert config.profiles["local"].base_url == "http://localhost:11434/v1"  # normalized
    assert config.approval.mode is ApprovalMode.AUTO_READ
    assert config.approval.rules() == [
        AllowTool("read_file"),
        AllowCommand("npm test"),
        AllowCommandPrefix(("grep", "-n")),
        AllowCommandPrefix(("ls", "-la", "--color")),
    ]
    assert [tool["name"] for tool in config.tools] == ["word_count"]


@pytest.mark.skipif(sys.platform != "linux", reason="XDG directories are a Linux convention")
def test_xdg_config_home_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    expected = tmp_path / "xdg" / "tui-agent" / "config.toml"
    assert default_config_path() == expected
    assert load_config() == Config()  # not there yet
    expected.parent.mkdir(parents=True)
    expected.write_text('default_profile = "demo"\n', encoding="utf-8")
    assert load_config().default_profile == "demo"


def test_toml_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    message = problems(tmp_path, "[settings]\nidle_timeout = 90\nmax_tokens = \n")
    assert str(tmp_path / "config.toml") in message
    assert "not valid TOML: line 3, column 14: invalid value" in message


def test_toml_error_at_end_of_document(tmp_path: Path) -> None:
    message = problems(tmp_path, 'default_profile = "gpt')
    assert "not valid TOML" in message
    assert "nterminated string" in message


def test_misspelled_key_is_named_with_its_path(tmp_path: Path) -> None:
    message = problems(tmp_path, '[profiles.gpt]\nprotocol = "openai-chat"\nmodle = "x"\n')
    assert "profiles.gpt.modle: unknown key; did you mean model?" in message
    assert "known keys" not in message  # the nearest key, not the whole table


def test_unknown_key_in_a_short_table_lists_it(tmp_path: Path) -> None:
    message = problems(tmp_path, "zzzqqq = 1\n")
    assert "zzzqqq: unknown key (known keys: default_profile, settings," in message


def test_unknown_key_far_from_any_gets_no_guess(tmp_path: Path) -> None:
    message = problems(tmp_path, "[settings]\nzzzqqq = 1\n")
    assert "settings.zzzqqq: unknown key (not one of the" in message
    assert "keys of [settings]; docs/configuration.md lists them)" in message
    assert "did you mean" not in message
    assert "idle_timeout" not in message  # not all of them on one line


def test_top_level_key_after_a_table_gets_a_hint(tmp_path: Path) -> None:
    message = problems(tmp_path, '[settings]\ndefault_profile = "gpt"\n')
    assert "settings.default_profile: unknown key" in message
    assert "must come before the first [table]" in message


def test_unknown_top_level_table(tmp_path: Path) -> None:
    assert "profile: unknown key" in problems(tmp_path, '[profile.gpt]\nprotocol = "gemini"\n')


def test_unknown_protocol_lists_the_five(tmp_path: Path) -> None:
    message = problems(tmp_path, '[profiles.x]\nprotocol = "openai"\nmodel = "m"\n')
    assert "profiles.x.protocol: unknown protocol 'openai'" in message
    assert "openai-responses, openai-chat, anthropic, gemini-interactions, gemini" in message


def test_missing_protocol(tmp_path: Path) -> None:
    message = problems(tmp_path, '[profiles.x]\nmodel = "m"\n')
    assert "profiles.x.protocol: required key is missing" in message


def test_wrong_types_are_named(tmp_path: Path) -> None:
    message = problems(tmp_path, '[settings]\nidle_timeout = "90"\nmax_retries = -1\n')
    assert "settings.idle_timeout: Input should be a valid number" in message
    assert "settings.max_retries: Input should be greater than or equal to 0" in message


def test_bad_approval_mode(tmp_path: Path) -> None:
    message = problems(tmp_path, '[approval]\nmode = "yolo"\n')
    assert "approval.mode: Input should be 'ask', 'auto-read', 'auto-all' or 'plan'" in message


def test_run_command_cannot_be_an_allowed_tool(tmp_path: Path) -> None:
    message = problems(tmp_path, '[approval]\nallowed_tools = ["run_command"]\n')
    assert "approval.allowed_tools: run_command cannot be allowed as a whole" in message


def test_compound_prefix_is_refused(tmp_path: Path) -> None:
    message = problems(tmp_path, '[approval]\nallowed_command_prefixes = ["git status; rm"]\n')
    assert "approval.allowed_command_prefixes: the command prefix" in message
    assert "contains shell operators" in message


def test_demo_profile_name_is_reserved(tmp_path: Path) -> None:
    message = problems(tmp_path, '[profiles.demo]\nprotocol = "openai-chat"\n')
    assert "'demo' is reserved for the built-in offline demo" in message


def test_default_profile_must_exist(tmp_path: Path) -> None:
    message = problems(tmp_path, 'default_profile = "gtp"\n[profiles.gpt]\nprotocol = "gemini"\n')
    assert "default_profile names 'gtp'" in message
    assert "profiles defined: gpt" in message


def test_quoted_profile_names_are_shown_quoted(tmp_path: Path) -> None:
    message = problems(tmp_path, '[profiles."my.box"]\nprotocol = "gemini"\nx = 1\n')
    assert 'profiles."my.box".x: unknown key' in message


@pytest.mark.parametrize(
    ("protocol", "url", "expected"),
    [
        ("openai-chat", "localhost:11434", "is not an http:// or https:// URL"),
        ("openai-chat", "ftp://host/v1", "is not an http:// or https:// URL"),
        ("openai-chat", "http://host/v1?x=1", "must not have a query"),
        ("openai-chat", "https://api.openai.com/v1/chat/completions", "'/chat/completions'"),
        ("openai-responses", "https://api.openai.com/v1/responses", "'/responses'"),
        ("anthropic", "https://api.anthropic.com/v1", "should not end with '/v1'"),
        ("gemini", "https://generativelanguage.googleapis.com/v1beta", "'/v1beta'"),
    ],
)
def test_bad_base_urls(tmp_path: Path, protocol: str, url: str, expected: str) -> None:
    text = f'[profiles.p]\nprotocol = "{protocol}"\nbase_url = "{url}"\n'
    message = problems(tmp_path, text)
    assert "profiles.p: " in message or "profiles.p.base_url: " in message
    assert expected in message


def test_stateful_needs_a_stateful_protocol(tmp_path: Path) -> None:
    message = problems(tmp_path, '[profiles.p]\nprotocol = "anthropic"\nstateful = true\n')
    assert "stateful = true needs protocol openai-responses or gemini-interactions" in message


def test_several_errors_are_all_listed(tmp_path: Path) -> None:
    message = problems(tmp_path, "[settings]\nidle = 1\nretries = 2\n")
    assert "settings.idle: unknown key" in message
    assert "settings.retries: unknown key" in message


def test_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "config.toml").mkdir()
    with pytest.raises(ConfigFileError, match="cannot read config file"):
        load_config(tmp_path / "config.toml")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'default_profile = "\xff"\n')
    with pytest.raises(ConfigFileError, match="is not UTF-8 text"):
        load_config(path)


@pytest.mark.parametrize(
    ("declared", "said"),
    [
        ('type = "strin"', "'type' must be one of"),
        ('type = ["string"]', "'type' must be one of"),  # a list once raised TypeError
    ],
)
def test_a_bad_user_tool_is_a_config_error_not_a_crash(
    tmp_path: Path, declared: str, said: str
) -> None:
    """Built only with the agent, a bad [[tools]] entry once ended `run` and the app with a
    traceback; it is checked with the rest of the file."""
    text = (
        '[[tools]]\nname = "git_log"\ndescription = "Commits."\nprogram = "git"\n'
        f'args = ["log", "--", "{{path}}"]\n[tools.parameters.path]\n{declared}\n'
    )
    message = problems(tmp_path, text)
    assert "user tool 'git_log': parameter 'path'" in message and said in message
