"""`tui-agent run` as a subprocess: the key reaches no file and no output, whatever the server,
the model or a tool sends back; usage and configuration errors are one line and exit 1."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from .fake_provider import ErrorEvent, ExpectToolResults, FakeProvider, Reply, Status
from .run_helpers import KEY, KEY_ENV, MODEL, Done, Home, final, read_call

KEY_SHAPES = re.compile(r"sk-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}")
SECRET_FILE = "secret.txt"  # the one input file that holds the key on purpose


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def _leaks(text: str) -> list[str]:
    found = KEY_SHAPES.findall(text)
    return found + ([KEY] if KEY in text and KEY not in found else [])


def _split(text: str) -> list[tuple[str, str]]:
    """Text ops cutting ``text`` inside the key, as a model's tokens would."""
    at = text.index(KEY) + 9
    return [("text", text[:at]), ("text", text[at : at + 5]), ("text", text[at + 5 :])]


def _assert_no_key_in_output(done: Done) -> None:
    assert not _leaks(done.stdout), done.stdout[-500:]
    assert not _leaks(done.stderr), done.stderr[-500:]


def test_the_key_reaches_no_file_and_no_output(home: Home) -> None:
    (home.workspace / SECRET_FILE).write_text(f"token = {KEY}\n", encoding="utf-8")
    echoed = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}}).encode()
    runs: list[Done] = []
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            Reply([*_split(f"I will read {KEY} now. "), *read_call(args='{"path":"secret.txt"}')]),
            final(server.protocol, f"The file holds {KEY}.", ExpectToolResults({"call_R": None})),
        )
        runs.append(home.run(server, f"my key is {KEY}", "--debug", approve="read-only"))
        assert runs[-1].code == 0, runs[-1].stderr
        (session,) = home.sessions()
        server.script(Status(401, body=echoed))
        runs.append(home.run(server, "again", "--session", session.stem, "--debug"))
        assert runs[-1].code == 2
        assert "HTTP 401" in runs[-1].stderr
        server.script(Reply(_split(f"cut {KEY} here"), faults=ErrorEvent(f"boom {KEY}")))
        runs.append(home.run(server, "once more", "--session", session.stem, "--json"))
        assert runs[-1].code == 2
        server.assert_all_consumed()
    kinds = [r["type"] for r in home.records()]
    assert kinds.count("truncated") == 2 and "tool_result" in kinds
    for done in runs:
        _assert_no_key_in_output(done)
    scanned = []
    for top in (home.config, home.data, home.state, home.cache, home.workspace):
        for path in sorted(p for p in top.rglob("*") if p.is_file()):
            if path == home.workspace / SECRET_FILE:
                continue
            text = path.read_bytes().decode("utf-8", "replace")
            assert not _leaks(text), f"a key in {path.relative_to(home.root)}"
            scanned.append(path.relative_to(home.root).as_posix())
    assert any(name.endswith(".jsonl") for name in scanned)
    assert any(name.endswith(".log") for name in scanned), scanned


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
