"""`tui-agent run` at its edges, as a real subprocess against the fake provider.

- It says which session it writes: a stderr line in text mode, the first ``--json`` event.
- ``run ... | head -1``: the reader goes away; run stops quietly (no traceback, nothing logged
  as a crash).
- Ctrl-C in the middle of an answer's line: the message starts a line of its own.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

import pytest

from .fake_provider import FakeProvider, Hold, Reply, StallBeforeTerminal
from .run_helpers import KEY, Home, final, finish

pytestmark = pytest.mark.heavy


def _raw_run(home: Home, server: FakeProvider, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        home.argv(server, "hello", *extra, approve="never"),
        cwd=home.workspace,
        env=home.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_run_says_which_session_it_writes(home: Home) -> None:
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(
            final("openai-chat", "Hi."),
            final("openai-chat", "Again."),
            final("openai-chat", "Once more."),
        )
        text = _raw_run(home, server)
        assert text.returncode == 0, text.stderr
        found = re.match(r"session ([0-9a-z]+) \(new\)\n", text.stderr)
        assert found, text.stderr
        (path,) = home.sessions()
        assert path.stem == found.group(1)

        resumed = _raw_run(home, server, "--session", found.group(1), "--json")
        assert resumed.returncode == 0, resumed.stderr
        first = json.loads(resumed.stdout.splitlines()[0])
        assert first == {"type": "session_started", "session_id": path.stem, "resumed": True}

        new = _raw_run(home, server, "--json")
        first = json.loads(new.stdout.splitlines()[0])
        assert first["type"] == "session_started" and first["resumed"] is False
        assert first["session_id"] != path.stem


def test_a_reader_that_goes_away_ends_run_quietly(home: Home) -> None:
    ops = [("text", f"line {n}\n") for n in range(200)]
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply(ops, faults=Hold(after_bytes=600)))
        process = subprocess.Popen(
            home.argv(server, "hello", approve="never"),
            cwd=home.workspace,
            env=home.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            assert process.stdout is not None
            assert process.stdout.readline() == b"line 0\n"  # as `head -1` reads
            assert server.wait_stalled(15.0)
            process.stdout.close()  # ... and leaves
            server.release()
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    text = stderr.decode()
    assert process.returncode == 141, text  # as Unix tools end on a closed pipe
    assert "Traceback" not in text and "BrokenPipe" not in text, text
    assert re.fullmatch(r"session [0-9a-z]+ \(new\)\n", text), text
    log = "".join(p.read_text() for p in (home.root / "state").rglob("*.log"))
    assert "crash" not in log.lower()


def test_ctrl_c_mid_line_starts_a_new_line(home: Home) -> None:
    with FakeProvider("anthropic", api_key=KEY) as server:
        server.script(Reply([("text", "half an answer")], faults=StallBeforeTerminal()))
        process = home.start(server, "hello", approve="never")
        try:
            assert server.wait_stalled(15.0)
            time.sleep(0.5)  # the held reply's text was read: let the child print it
            process.send_signal(signal.SIGINT)
            done = finish(process)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert done.code == 2
    assert done.stdout == "half an answer\n"  # the line is ended before the message
    assert done.stderr == "tui-agent run: interrupted\n"
