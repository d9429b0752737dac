"""What the command line says before anything else happens.

- An error found before the app can work (a session to resume that does not exist, an unknown
  profile, a broken config file) ends the app at once with one line on stderr and exit 1,
  instead of leaving a dead app open that later quits with 0. The app runs in a real
  pseudo-terminal here, as a person starts it.
- Usage lines show the sub-command as optional: ``[COMMAND ...]``, ``[ACTION ...]``.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_agent.cli import _parser

pytestmark = pytest.mark.heavy


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        HOME=str(root / "home"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_DATA_HOME=str(root / "data"),
        XDG_STATE_HOME=str(root / "state"),
        XDG_CACHE_HOME=str(root / "cache"),
        TERM="xterm-256color",
        COLUMNS="100",
        LINES="30",
    )
    return env


def _run_in_terminal(args: list[str], root: Path, timeout: float = 60) -> tuple[int, str]:
    """Run ``tui-agent ARGS`` on a pseudo-terminal; its exit status and its output text."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the app
        os.chdir(root)
        os.execve(sys.executable, [sys.executable, "-m", "tui_agent", *args], _env(root))
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed its terminal (it ended)
                break
            if not chunk:
                break
            out += chunk
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail(f"the app did not end: {bytes(out[-400:])!r}")
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def _last_line(text: str) -> str:
    # After the app leaves the alternate screen, the error is the last line it prints.
    tail = text.rsplit("\x1b[?1049l", 1)[-1]
    lines = [line for line in tail.replace("\r", "").split("\n") if line.strip()]
    # Drop the terminal-mode resets that may precede it on the same line.
    return lines[-1].rsplit("\x1b[?1006l", 1)[-1] if lines else ""


@pytest.mark.parametrize(
    ("args", "config", "expected", "before_screen"),
    [
        (["-r", "nosuchid"], None, "tui-agent: no session 'nosuchid'", True),
        (["--profile", "nosuch"], None, "tui-agent: no profile named 'nosuch'", True),
        ([], "[settings]\nidel_timeout = 3\n", "did you mean idle_timeout?", False),
        (["--profile", "nosuch"], '[profiles.fast]\nprotocol = "anthropic"\n', "fast, demo", True),
        (["--profile", "fast"], "[profiles\nfast", "is not valid TOML", True),
        (["-r", "./nowhere.jsonl"], None, "no session file at ./nowhere.jsonl", True),
    ],
    ids=[
        "unknown-session",
        "unknown-profile",
        "config-typo",
        "unknown-profile-listed",
        "not-toml",
        "no-session-file",
    ],
)
def test_error_before_work_exits_1_with_one_line(
    tmp_path: Path, args: list[str], config: str | None, expected: str, before_screen: bool
) -> None:
    if config is not None:
        folder = tmp_path / "config" / "tui-agent"
        folder.mkdir(parents=True)
        (folder / "config.toml").write_text(config)
    code, out = _run_in_terminal(args, tmp_path)
    assert code == 1, out[-500:]
    line = _last_line(out)
    assert line.startswith("tui-agent: ") and expected in line, line
    assert "Traceback" not in out
    if before_screen:  # found without the screen: the terminal never switched to the app
        assert "\x1b[?1049h" not in out


def test_an_unknown_theme_is_an_error_before_the_screen(tmp_path: Path) -> None:
    """As --sandbox bogus is: one line, exit 1, and the terminal never switched to the app."""
    code, out = _run_in_terminal(["--theme", "nosuch"], tmp_path)
    assert code == 1, out[-500:]
    line = _last_line(out)
    assert line.startswith("tui-agent: no theme named 'nosuch' (themes: "), line
    assert "dark" in line and "tui-dark" not in line
    assert "\x1b[?1049h" not in out  # no alternate screen


def test_usage_lines_show_subcommands_as_optional() -> None:
    parser = _parser()
    usage = " ".join(parser.format_usage().split())
    assert usage.endswith("[COMMAND ...]"), usage
    help_text = subprocess.run(
        [sys.executable, "-m", "tui_agent", "sessions", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    first = " ".join(help_text.split("\n\n", 1)[0].split())
    assert first.endswith("[ACTION ...]"), first


def _run_app_and_quit(args: list[str], root: Path, send: bytes) -> tuple[int, str]:
    """Start the app on a pseudo-terminal; once it shows its message box type ``send``; once the
    demo's answer is saved (at once when nothing was sent), Ctrl+Q."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(root)
        env = _env(root) | {"TUI_AGENT_DEMO_PACE": "0"}
        os.execve(sys.executable, [sys.executable, "-m", "tui_agent", *args], env)
    sessions = root / "data" / "tui-agent" / "sessions"

    def answered() -> bool:
        return any('"assistant"' in path.read_text() for path in sessions.glob("*.jsonl"))

    out = bytearray()
    began = time.monotonic()
    sent = quit_sent = False
    try:
        while time.monotonic() - began < 60:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not sent and b"Message the model" in out:
                os.write(fd, send)
                sent = True
            elif sent and not quit_sent and (not send or answered()):
                os.write(fd, b"\x11")  # Ctrl+Q
                quit_sent = True
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail(f"the app did not end: {bytes(out[-400:])!r}")
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_quitting_says_how_to_resume_and_resuming_says_which_session(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    code, out = _run_app_and_quit(["--workspace", str(workspace)], tmp_path, b"hello\r")
    assert code == 0, out[-500:]
    line = _last_line(out)
    # Started as `python -m tui_agent`: the hint says so (tui-agent may not be on PATH).
    assert line.startswith(f"to resume this session: {sys.executable} -m tui_agent -r "), line
    session_id = line.rsplit(" ", 1)[-1]
    sessions = list((tmp_path / "data" / "tui-agent" / "sessions").glob("*.jsonl"))
    assert [p.stem for p in sessions] == [session_id]

    # Opening and leaving without a word keeps no session and prints no resume line.
    code, out = _run_app_and_quit(["--workspace", str(workspace)], tmp_path, b"")
    assert code == 0 and "to resume this session" not in out


def test_resume_notices_name_the_session_and_a_fork_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from tui_agent.approval.approver import HeadlessApprover
    from tui_agent.wiring.host import open_host
    from tui_agent.wiring.host_options import HostOptions

    env = _env(tmp_path) | {"TUI_AGENT_DEMO_PACE": "0"}
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, env[name])
    for name in [n for n in os.environ if n.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    workspace = tmp_path / "ws"
    workspace.mkdir()

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "tui_agent", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=workspace,
            timeout=120,
            check=True,
        )
        return done.stdout

    cli("run", "hello there", "--workspace", str(workspace))
    source = json.loads(cli("sessions", "--json"))[0]["id"]
    fork = cli("sessions", "fork", source, "--at", "1").strip()

    async def notices(session: str) -> list[str]:
        options = HostOptions(profile="demo", workspace=str(workspace), resume=session)
        host = await open_host(options, HeadlessApprover("never"))
        try:
            return [notice.text for notice in host.notices]
        finally:
            await host.close()

    shown = asyncio.run(notices(source))
    assert f"resumed session {source}: hello there (2 messages)" in shown
    shown = asyncio.run(notices(fork))
    assert f"resumed session {fork}: fork of hello there at message 1 (1 messages)" in shown
    assert f"forked from {source} at message 1" in shown


def test_an_unreadable_workspace_is_said_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from tui_agent.approval.approver import HeadlessApprover
    from tui_agent.wiring.host import open_host
    from tui_agent.wiring.host_options import HostOptions

    if os.geteuid() == 0:
        pytest.skip("root reads every folder; the check uses os.access")
    env = _env(tmp_path)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, env[name])
    workspace = tmp_path / "locked"
    workspace.mkdir(mode=0o000)

    async def notices() -> list[str]:
        options = HostOptions(profile="demo", workspace=str(workspace))
        host = await open_host(options, HeadlessApprover("never"))
        try:
            return [notice.text for notice in host.notices]
        finally:
            await host.close()

    try:
        assert any("cannot be read" in text for text in asyncio.run(notices()))
    finally:
        workspace.chmod(0o700)
