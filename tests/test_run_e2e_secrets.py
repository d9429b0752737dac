"""`tui-agent run` as a subprocess: usage and configuration errors are one line and exit 1.

That the key reaches no file and no output, whatever the server, the model or a tool sends back,
is proven in tests/hostile/test_secrets.py."""

from __future__ import annotations

import sys

import pytest

from .run_helpers import KEY, KEY_ENV, MODEL, Done, Home

pytestmark = pytest.mark.heavy


def _run_cli(home: Home, *args: str, key: str | None = KEY) -> Done:
    return home.run_argv([sys.executable, "-m", "tui_agent.cli", "run", *args], key=key)


def _assert_usage_error(done: Done, *words: str) -> None:
    assert done.code == 1, done
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("tui-agent run: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]


def _flags(home: Home, protocol: str = "openai-chat") -> list[str]:
    return [
        "--protocol",
        protocol,
        "--model",
        MODEL,
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--api-key-env",
        KEY_ENV,
        "--workspace",
        str(home.workspace),
    ]


def test_unknown_protocol_is_a_usage_error(home: Home) -> None:
    _assert_usage_error(_run_cli(home, "hi", *_flags(home, "openai-chatt")), "openai-chatt")


def test_missing_key_variable_is_a_usage_error(home: Home) -> None:
    _assert_usage_error(_run_cli(home, "hi", *_flags(home), key=None), KEY_ENV)


def test_unknown_session_is_a_usage_error(home: Home) -> None:
    done = _run_cli(home, "hi", *_flags(home), "--session", "nosuchsession")
    _assert_usage_error(done, "nosuchsession")
    assert not list(home.data.rglob("*.jsonl")), "no session file for a run that never started"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[settings]\nidle_timeout = \n", ["config.toml", "line 2"]),
        ("[settings]\nidle_timout = 5\n", ["config.toml", "idle_timout"]),
    ],
    ids=["toml", "key"],
)
def test_bad_config_is_a_usage_error(text: str, words: list[str], home: Home) -> None:
    home.write_config(text)
    _assert_usage_error(_run_cli(home, "hi", *_flags(home)), *words)
