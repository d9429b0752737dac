"""Launch `tui-agent run` as a real subprocess in an isolated home, against the fake provider.

``Home(tmp_path)`` makes the XDG config/data/state/cache dirs and a workspace, all under
``tmp_path``; ``home.run(server, "prompt", ...)`` runs the command to the end and
``home.start(...)`` returns the live process. Only what the child needs is in its environment:
PATH, HOME, the XDG dirs, PYTHONPATH (this checkout) and the fake key.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fake_provider import FakeProvider, Reply

ROOT = Path(__file__).resolve().parent.parent
KEY_ENV = "FAKE_PROVIDER_KEY"
KEY = "sk-proj-FAKE0123456789abcdefXYZ"
MODEL = "fake-model"
RUN_TIMEOUT_S = 30.0
ARGS = '{"path":"notes.txt"}'  # read_file's arguments in the two-step conversations


_SESSION_TEXT = re.compile(r"session [0-9a-z]+ \((new|resumed)\)\n")


def split_session_line(stdout: str, stderr: str) -> tuple[str, str, str | None]:
    """``run`` first says which session it writes: a stderr line in text mode, the first
    stdout event with --json. Split it off, so tests of the rest see the rest."""
    found = _SESSION_TEXT.match(stderr)
    if found:
        return stdout, stderr[found.end() :], found.group(0)
    first, _, rest = stdout.partition("\n")
    if first.startswith('{"type": "session_started"'):
        return rest, stderr, first
    return stdout, stderr, None


@dataclass
class Done:
    """A finished run: exit status, both outputs, and how long it took."""

    code: int
    stdout: str
    stderr: str
    seconds: float
    session_line: str | None = None  # run's first line: which session it writes (split off)

    def __post_init__(self) -> None:
        self.stdout, self.stderr, self.session_line = split_session_line(self.stdout, self.stderr)

    def events(self) -> list[dict[str, Any]]:
        """The --json lines, each parsed."""
        return [json.loads(line) for line in self.stdout.splitlines()]


class Home:
    """One isolated user: XDG dirs and a workspace under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config"
        self.data = root / "data"
        self.state = root / "state"
        self.cache = root / "cache"
        self.workspace = root / "ws"
        for folder in (self.config, self.data, self.state, self.cache, self.workspace):
            folder.mkdir(parents=True, exist_ok=True)

    def env(self, key: str | None = KEY) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.root),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
            "XDG_CONFIG_HOME": str(self.config),
            "XDG_DATA_HOME": str(self.data),
            "XDG_STATE_HOME": str(self.state),
            "XDG_CACHE_HOME": str(self.cache),
        }
        if key is not None:
            env[KEY_ENV] = key
        return env

    def write_config(self, text: str) -> Path:
        """Write ``config.toml`` where tui-agent reads it."""
        folder = self.config / "tui-agent"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "config.toml"
        path.write_text(text, encoding="utf-8")
        return path

    def settings(self, **values: float) -> Path:
        """A config.toml with only a [settings] table."""
        lines = ["[settings]", *(f"{name} = {value!r}" for name, value in values.items())]
        return self.write_config("\n".join(lines) + "\n")

    def sessions(self) -> list[Path]:
        return sorted((self.data / "tui-agent" / "sessions").glob("*.jsonl"))

    def records(self, path: Path | None = None) -> list[dict[str, Any]]:
        """The records of the session file (the only one, unless ``path`` is given)."""
        if path is None:
            (path,) = self.sessions()
        return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]

    def argv(
        self,
        server: FakeProvider,
        prompt: str,
        *extra: str,
        approve: str = "all",
    ) -> list[str]:
        return [
            sys.executable,
            "-m",
            "tui_agent.cli",
            "run",
            prompt,
            "--protocol",
            server.protocol,
            "--model",
            MODEL,
            "--base-url",
            server.base_url,
            "--api-key-env",
            KEY_ENV,
            "--workspace",
            str(self.workspace),
            "--approve",
            approve,
            *extra,
        ]

    def start(
        self, server: FakeProvider, prompt: str, *extra: str, approve: str = "all"
    ) -> subprocess.Popen[str]:
        """The running process; read its output with ``finish``."""
        return subprocess.Popen(
            self.argv(server, prompt, *extra, approve=approve),
            cwd=self.workspace,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(self, server: FakeProvider, prompt: str, *extra: str, approve: str = "all") -> Done:
        return self.run_argv(self.argv(server, prompt, *extra, approve=approve))

    def run_argv(self, argv: list[str], key: str | None = KEY) -> Done:
        """Run any command line in this home (``argv[0]`` is the interpreter)."""
        began = time.monotonic()
        done = subprocess.run(
            argv,
            cwd=self.workspace,
            env=self.env(key),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        return Done(done.returncode, done.stdout, done.stderr, time.monotonic() - began)


def finish(process: subprocess.Popen[str]) -> Done:
    """Wait for a process from ``Home.start`` and collect its outputs."""
    began = time.monotonic()
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        raise AssertionError(f"tui-agent run did not end: {stderr[-2000:]}") from None
    return Done(process.returncode, stdout, stderr, time.monotonic() - began)


class LineReader:
    """Reads a live process's output in a thread, so a test can wait for a line in time."""

    def __init__(self, stream: Any) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: Any) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def next(self, timeout: float) -> str | None:
        """The next line; None at the end of the output; AssertionError after ``timeout``."""
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output line within {timeout} s") from None

    def rest(self) -> list[str]:
        """Every line left, once the process has ended."""
        self._thread.join(RUN_TIMEOUT_S)
        out = []
        while (line := self._lines.get_nowait()) is not None:
            out.append(line)
        return out


class JsonLines:
    """The events of a live ``--json`` process, read as they come; all are kept in ``seen``."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.seen: list[dict[str, Any]] = []
        self._reader = LineReader(process.stdout)
        self._errors = LineReader(process.stderr)

    def __enter__(self) -> JsonLines:
        return self

    def __exit__(self, *exc: object) -> None:
        """A test that failed half-way leaves no process behind."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def wait_for(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        """The next event of type ``kind``."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._reader.next(max(0.0, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"the process ended before a {kind!r} event")
            event: dict[str, Any] = json.loads(line)
            self.seen.append(event)
            if event["type"] == kind:
                return event

    def finish(self) -> Done:
        """Wait for the process; the rest of stdout joins ``seen``."""
        began = time.monotonic()
        try:
            self.process.wait(RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("tui-agent run did not end") from None
        rest = self._reader.rest()
        self.seen += [json.loads(line) for line in rest]
        stderr = "".join(self._errors.rest())
        return Done(self.process.returncode, "".join(rest), stderr, time.monotonic() - began)


def types(records: list[dict[str, Any]]) -> list[str]:
    return [r["type"] for r in records]


def read_call(call_id: str = "call_R", args: str = ARGS) -> list[tuple[Any, ...]]:
    """Ops for one read_file call, its arguments split in two fragments."""
    half = len(args) // 2
    return [
        ("call", 0, call_id, "read_file"),
        ("args", 0, args[:half]),
        ("args", 0, args[half:]),
        ("close", 0),
    ]


def write_call(path: str, content: str, call_id: str = "call_W") -> list[tuple[Any, ...]]:
    """Ops for one write_file call, its arguments in fragments of 8 characters."""
    args = json.dumps({"path": path, "content": content})
    ops: list[tuple[Any, ...]] = [("call", 0, call_id, "write_file")]
    ops += [("args", 0, args[i : i + 8]) for i in range(0, len(args), 8)]
    return [*ops, ("close", 0)]


FINAL_STOP = {"openai-chat": "stop", "anthropic": "end_turn"}


def final(protocol: str, text: str = "All done.", expect: Any = ()) -> Reply:
    """A text-only answer that ends the loop, with the protocol's normal stop reason."""
    if protocol in FINAL_STOP:
        return Reply([("text", text)], stop=FINAL_STOP[protocol], expect=expect)
    return Reply([("text", text)], expect=expect)


def alive(pid: int) -> bool:
    """True while the process ``pid`` runs (a zombie not yet reaped does not count)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie nobody reaped yet is not running
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
