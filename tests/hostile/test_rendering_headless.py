"""Rendering without the app: what `tui-agent run`, `tui-agent replay --headless` and
`tui-agent export --format markdown` print to a terminal. Every payload of
``terminal.PAYLOADS``, in model text split across deltas, tool names, arguments and output, file
names and a provider's error body: no ESC, C1 or other control byte reaches stdout or stderr,
and each payload is shown as its visible escape."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ..fake_provider import FakeProvider, Reply, Status
from ..run_helpers import KEY, Done, Home, final
from .terminal import PAYLOADS, RAW_FRAGMENTS, one_line, shown

pytestmark = pytest.mark.heavy

PROTOCOL = "openai-chat"
# Any control byte but newline and tab; C1 too.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _assert_inert(text: str, where: str) -> None:
    found = _CONTROL.findall(text)
    assert not found, f"{where}: control bytes {found!r} in {text!r}"
    assert not [raw for raw in RAW_FRAGMENTS if raw in text], where


def _cli(home: Home, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui_agent.cli", *args],
        cwd=home.workspace,
        env=home.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _script(home: Home) -> list[Reply]:
    """Text split inside each sequence, a file named with every payload, a listing, a command
    printing them, and a tool whose name is a payload; then an answer with them all."""
    for index, raw in enumerate(PAYLOADS.values()):
        safe = raw.replace("/", "\u2215").replace("\x00", "")
        (home.workspace / f"{index}-{safe}.txt").write_text(raw, encoding="utf-8")
    text = one_line(PAYLOADS)
    deltas = [("text", text[i : i + 3]) for i in range(0, len(text), 3)]  # split sequences
    printf = "printf '%s\\n' " + " ".join(shlex.quote(raw) for raw in PAYLOADS.values())
    calls = [
        ("call_L", "list_dir", {"path": "."}),
        ("call_C", "run_command", {"command": printf}),
        ("call_X", "evil" + PAYLOADS["OSC 0"], {"path": one_line(PAYLOADS)}),
    ]
    ops: list[tuple[object, ...]] = [*deltas, ("text", "\n")]
    for index, (call_id, name, arguments) in enumerate(calls):
        ops += [
            ("call", index, call_id, name),
            ("args", index, json.dumps(arguments)),
            ("close", index),
        ]
    return [Reply(ops), final(PROTOCOL, "Listed: " + one_line(PAYLOADS))]


@pytest.fixture
def ran(tmp_path: Path) -> tuple[Home, Done]:
    home = Home(tmp_path)
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(*_script(home))
        done = home.run(server, "list and print everything " + one_line(PAYLOADS))
        server.assert_all_consumed()
    return home, done


def test_run_prints_no_control_byte_and_shows_every_payload(ran: tuple[Home, Done]) -> None:
    _, done = ran
    assert done.code == 0, done.stderr
    _assert_inert(done.stdout, "run stdout")
    _assert_inert(done.stderr, "run stderr")
    flat = "".join(done.stdout.split())
    # The model's text (split inside every sequence) and its final answer show each payload.
    assert [n for n, raw in PAYLOADS.items() if "".join(shown(raw).split()) not in flat] == []


def test_replay_headless_and_the_markdown_export_print_no_control_byte(
    ran: tuple[Home, Done],
) -> None:
    home, _ = ran
    (session,) = home.sessions()
    replayed = _cli(home, "replay", "--headless", str(session))
    assert replayed.returncode == 0, replayed.stderr
    exported = _cli(home, "export", session.stem, "--format", "markdown")
    assert exported.returncode == 0, exported.stderr
    for name, out in (("replay", replayed), ("export", exported)):
        _assert_inert(out.stdout, f"{name} stdout")
        _assert_inert(out.stderr, f"{name} stderr")
        assert "".join(shown(PAYLOADS["OSC 52"]).split()) in "".join(out.stdout.split()), name


def test_an_error_body_full_of_payloads_is_printed_inert(tmp_path: Path) -> None:
    home = Home(tmp_path)
    body = json.dumps({"error": {"message": one_line(PAYLOADS)}}).encode()
    with FakeProvider(PROTOCOL, api_key=KEY) as server:
        server.script(Status(400, body=body))
        done = home.run(server, "hello")
    assert done.code == 2
    _assert_inert(done.stdout, "stdout")
    _assert_inert(done.stderr, "stderr")
    assert "HTTP 400" in done.stderr and shown("\x1b]52;c;") in done.stderr
