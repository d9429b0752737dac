"""Secrets: a scripted session with failures, fake keys in the environment for every provider,
and then every file the app wrote is scanned for the keys and for key-like patterns.

The session is real: `tui-agent run` subprocesses (a model that says the key, a tool error whose
output holds it, a 401 whose body echoes it, a 500, a mid-stream cut, response headers echoing
it under --debug), the app driven by Pilot (the key typed, said by the model and echoed by a
401, then a screenshot through the app's own action), and `tui-agent export` in both formats.
HOME and every XDG folder are under tmp_path, so the walk sees whatever the app wrote; the test
asserts the files it expects are there, so the scan is never vacuous.

Then: a crash (in the app, and in a headless run) with the key in a local variable prints no
locals and no key; DEBUG logging of httpx and httpcore, for each protocol, goes through the same
redaction, x-api-key, x-goog-api-key, Authorization and ?key= included.
"""

from __future__ import annotations

import html
import json
import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import httpx
import pytest
from textual.binding import Binding, BindingType

from tui_agent.logs import setup_logging
from tui_agent.ui.app import TuiAgentApp

from ..fake_provider import ExpectToolResults, FakeProvider, Reply, Reset, Status
from ..run_helpers import Done, Home
from ..ui_app_helpers import SIZE, answer, offset_of, send, wait_for, wait_idle_agent, wait_text
from ..wire import BUILDERS
from .secrets_helpers import (
    KEY_ENVS,
    RUN_KEY,
    RUN_KEY_ENV,
    TUI_KEY,
    app_for,
    leaks,
    split_at_key,
)

SECRET_FILE = "secret.txt"  # the one input file that holds a key on purpose


class KeyedHome(Home):
    """A Home whose environment also holds a fake key for every provider."""

    def env(self, key: str | None = None) -> dict[str, str]:
        return {**super().env(None), **KEY_ENVS}

    def cli(self, *args: str) -> Done:
        return self.run_argv([sys.executable, "-m", "tui_agent.cli", *args])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KeyedHome:
    """An isolated home whose environment (this process's too) holds every provider's key."""
    home = KeyedHome(tmp_path)
    for name, value in home.env().items():
        if name == "HOME" or name.startswith("XDG_") or name in KEY_ENVS:
            monkeypatch.setenv(name, value)
    return home


def _command_call(command: str) -> list[tuple[object, ...]]:
    args = json.dumps({"command": command})
    return [("call", 0, "call_X", "run_command"), ("args", 0, args[:9]), ("args", 0, args[9:])]


def _headless_runs(home: KeyedHome) -> list[Done]:
    """The run half of the session: every failure the issue names, in two runs."""
    echoed = json.dumps({"error": {"message": f"Incorrect API key provided: {RUN_KEY}"}}).encode()
    echo_headers = {"x-api-key": RUN_KEY, "www-authenticate": f"Bearer {RUN_KEY}"}
    cut = split_at_key(f"It said {RUN_KEY} and", RUN_KEY)
    inside = offset_of("openai-chat", cut, cut[1][1]) + 2
    with FakeProvider("openai-chat", api_key=RUN_KEY) as server:
        server.script(
            # Model text holding the key, cut inside it; a tool error whose output holds it.
            Reply(
                [
                    *split_at_key(f"Reading it; the key is {RUN_KEY} here. ", RUN_KEY),
                    *_command_call(f"cat {SECRET_FILE}; exit 3"),
                    ("close", 0),
                ],
                headers=echo_headers,
            ),
            # A mid-stream cut: the connection is reset inside the key the model is saying.
            Reply(
                cut, faults=Reset(after_bytes=inside), expect=ExpectToolResults({"call_X": RUN_KEY})
            ),
        )
        first = home.run(server, f"my key is {RUN_KEY}", "--debug")
        session = home.sessions()[0].stem
        # A 500 (retried) and then a 401, both bodies echoing the key.
        server.script(Status(500, body=echoed), Status(401, body=echoed))
        second = home.run(server, "again", "--session", session, "--json", "--debug")
        server.assert_all_consumed()
    assert (first.code, second.code) == (2, 2), (first.stderr, second.stderr)
    assert "HTTP 500" in second.stdout and "HTTP 401" in second.stdout
    return [first, second]


async def _app_session(home: KeyedHome) -> Path:
    """The app half: the key typed, said by the model, echoed by a 401; then a screenshot."""
    with FakeProvider("anthropic", api_key=TUI_KEY) as server:
        echoed = json.dumps({"error": {"message": f"invalid x-api-key {TUI_KEY}"}}).encode()
        server.script(
            answer(server.protocol, f"Noted: your key is {TUI_KEY} and the other is {RUN_KEY}."),
            Status(401, body=echoed),
        )
        app = app_for(server, home.workspace)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.host is not None, "the boot worker")
            await send(pilot, f"remember {TUI_KEY}")
            await wait_text(pilot, "Noted: your key is")
            await wait_idle_agent(pilot)
            await send(pilot, "and now?")
            await wait_text(pilot, "HTTP 401")
            await wait_idle_agent(pilot)
            downloads = home.root / "Downloads"  # where Textual saves it; it must exist
            downloads.mkdir()
            await app.run_action("screenshot")
            await wait_for(pilot, lambda: list(downloads.glob("*.svg")), "the screenshot file")
            await pilot.press("ctrl+q")
        server.assert_all_consumed()
    (shot,) = (home.root / "Downloads").glob("*.svg")
    return shot


def _exports(home: KeyedHome) -> list[Done]:
    """Both export formats of the run's session (the one with every failure), to files."""
    out = home.root / "exports"
    out.mkdir()
    first = home.sessions()[0].stem  # ids sort by creation: the run's session
    done = [
        home.cli("export", first, "--format", fmt, "-o", str(out / f"{first}.{fmt}"))
        for fmt in ("markdown", "json")
    ]
    assert all(d.code == 0 for d in done), [d.stderr for d in done if d.code]
    return done


def _wait_written(path: Path) -> None:
    """A screenshot is written by a thread of the driver: wait until it is complete."""
    deadline = time.monotonic() + 10.0
    while "</svg>" not in path.read_text("utf-8", "replace"):
        assert time.monotonic() < deadline, "the screenshot was never completed"
        time.sleep(0.02)


@pytest.mark.heavy
async def test_scripted_session_with_failures_leaves_no_key_in_any_file(home: KeyedHome) -> None:
    tmp_path = home.root
    home.settings(max_retries=1, retry_max_wait=0.01)
    (home.workspace / SECRET_FILE).write_text(f"token = {RUN_KEY}\n", encoding="utf-8")
    outputs = _headless_runs(home)
    shot = await _app_session(home)
    _wait_written(shot)
    outputs += _exports(home)

    for done in outputs:
        assert not leaks(done.stdout), done.stdout[-800:]
        assert not leaks(done.stderr), done.stderr[-800:]
    scanned: dict[str, str] = {}
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file()):
        if path == home.workspace / SECRET_FILE:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        if path.suffix == ".svg":
            text = html.unescape(text).replace("\xa0", " ")  # a space is written as &#160;
        name = path.relative_to(tmp_path).as_posix()
        assert not leaks(text), f"{leaks(text)} in {name}"
        scanned[name] = text
    # Not vacuous: the app wrote the files the scan is about, and they hold the session.
    sessions = [n for n in scanned if n.endswith(".jsonl")]
    assert len(sessions) == 2, sorted(scanned)
    (log,) = [n for n in scanned if n.endswith("tui-agent.log")]
    assert "HTTP Request: POST" in scanned[log] and "x-api-key', b'[REDACTED]" in scanned[log]
    exported = {n.rsplit(".", 1)[1] for n in scanned if n.startswith("exports/")}
    assert exported == {"markdown", "json"}
    assert "Noted: your key is [REDACTED]" in scanned[shot.relative_to(tmp_path).as_posix()]
    every_session = "".join(scanned[n] for n in sessions)
    for fact in ("Incorrect API key provided", "[exit code 3]", "invalid x-api-key"):
        assert fact in every_session, fact
    records = [json.loads(line) for line in every_session.splitlines() if line]
    reasons = [r["reason"] for r in records if r["type"] == "truncated"]
    assert sorted(reasons) == ["cut", "error", "error"], reasons


# -- a crash with a key in a local variable ---------------------------------------------------


class CrashingApp(TuiAgentApp):
    """The app with one test-only key: F9 raises in a frame that holds the key, as a frame that
    builds a request does."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("f9", "crash", priority=True)]
    say_key = False

    def action_crash(self) -> None:
        assert self.host is not None
        api_key = self.host.profile.api_key
        headers = {"x-api-key": api_key}
        raise RuntimeError(f"refused: {headers}" if self.say_key else "the client broke")


@pytest.mark.parametrize(
    "say_key", [False, True], ids=["key in a local variable", "key in the message"]
)
@pytest.mark.heavy
async def test_a_crash_with_a_key_in_a_local_variable_does_not_print_it(
    home: KeyedHome, say_key: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    CrashingApp.say_key = say_key
    with FakeProvider("anthropic", api_key=RUN_KEY) as server:
        app = app_for(server, home.workspace, RUN_KEY_ENV, CrashingApp)
        with pytest.raises(RuntimeError):
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: app.host is not None, "the boot worker")
                await pilot.press("f9")
                await pilot.pause()
    crash = capsys.readouterr().err
    assert "action_crash" in crash and "RuntimeError" in crash, crash  # the report is there
    assert not leaks(crash), crash
    (log,) = home.state.rglob("tui-agent.log")
    logged = log.read_text("utf-8")
    assert "crashed" in logged and "action_crash" in logged, logged
    assert not leaks(logged), logged
    if say_key:
        assert "refused: {'x-api-key': '[REDACTED]'}" in crash


CRASH_IN_RUN = f"""
import os
from tui_agent.logs import add_log_secret, redact_crashes, setup_logging

setup_logging()
redact_crashes()  # what `tui-agent run` does first


def build_headers():
    api_key = os.environ["{RUN_KEY_ENV}"]
    add_log_secret(api_key)
    raise RuntimeError("refused: " + api_key)


build_headers()
"""


def test_an_uncaught_crash_in_a_headless_run_prints_and_logs_no_key(home: KeyedHome) -> None:
    done = home.run_argv([sys.executable, "-c", CRASH_IN_RUN])
    assert done.code == 1 and "build_headers" in done.stderr, done.stderr
    assert "refused: [REDACTED]" in done.stderr and not leaks(done.stderr), done.stderr
    (log,) = home.state.rglob("tui-agent.log")
    assert "refused: [REDACTED]" in log.read_text("utf-8")


# -- DEBUG logging of httpx and httpcore -------------------------------------------------------

# Response headers a proxy might echo; their values are keys nobody told the app about.
ECHOED = {
    "x-api-key": "echoed-x-api-key-value-41d8",
    "x-goog-api-key": "echoed-goog-key-value-92ab",
    "authorization": "Bearer echoed-bearer-token-7c3e",
    "x-request-echo": RUN_KEY,
}


@pytest.mark.parametrize("protocol", list(BUILDERS))
@pytest.mark.heavy
def test_debug_logging_of_httpx_redacts_api_key_headers_and_authorization(
    home: KeyedHome, protocol: str
) -> None:
    with FakeProvider(protocol, api_key=RUN_KEY) as server:
        server.script(answer(protocol, "Hi.", headers=ECHOED))
        done = home.run(server, "hello", "--debug")
    assert done.code == 0, done.stderr
    (log,) = home.state.rglob("tui-agent.log")
    text = log.read_text("utf-8")
    assert "HTTP Request: POST" in text and "receive_response_headers" in text  # captured
    for name in ("x-api-key", "x-goog-api-key", "authorization"):
        assert f"(b'{name}', b'" in text
    leaked = [value for value in ECHOED.values() if value.split()[-1] in text]
    assert not leaked and not leaks(text), leaked


def test_debug_logging_of_httpx_redacts_a_key_in_the_query(
    tmp_path: Path, restore_http_loggers: None
) -> None:
    key = "query-key-value-0f9e8d7c6b"  # as Gemini takes it: ?key=
    path = setup_logging(debug=True, directory=tmp_path / "logs")
    assert path is not None
    with FakeProvider("gemini", check_on_exit=False) as server:
        server.script(Reply([("text", "Hi.")]))
        url = f"{server.base_url}/v1beta/models/m:streamGenerateContent?alt=sse&key={key}"
        httpx.post(url, json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    text = path.read_text("utf-8")
    assert "HTTP Request: POST" in text and "&key=[REDACTED]" in text, text
    assert key not in text


@pytest.fixture
def restore_http_loggers() -> Iterator[None]:
    """setup_logging in this process: put the loggers back as they were afterwards."""
    names = ("tui_agent", "httpx", "httpcore")
    saved = [
        (
            logging.getLogger(n),
            logging.getLogger(n).level,
            logging.getLogger(n).propagate,
            list(logging.getLogger(n).handlers),
        )
        for n in names
    ]
    yield
    for logger, level, propagate, handlers in saved:
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            if handler not in handlers:
                handler.close()
        for handler in handlers:
            logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
