"""The sandbox closes host services: no variable pointing at a socket or an agent reaches a
command, no credential inside a URL does, and no pathname socket of the host answers it.

Real parts: a real tmux server of the test's own (``tmux -S``), whose socket ``$TMUX`` names in
the app's environment, and a real ``AF_UNIX`` listener of the test's own. A command that reached
either would run code outside the sandbox (``tmux run-shell`` runs in the tmux server, unconfined).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_agent.sandbox import detect
from tui_agent.tools import ToolContext, ToolOutput, builtin_registry
from tui_agent.tools.environment import scrubbed_environment

from ..tools_helpers import call

REGISTRY = builtin_registry()
confined = pytest.mark.skipif(
    not (detect().landlock_abi and detect().namespaces),
    reason="needs Landlock and user namespaces (see tui-agent doctor)",
)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(workspace=workspace.resolve(), command_timeout_s=30)


async def run(ctx: ToolContext, command: str) -> ToolOutput:
    return await call(REGISTRY, ctx, "run_command", json.dumps({"command": command}))


@contextlib.contextmanager
def unix_listener(path: Path) -> Iterator[list[bytes]]:
    """A pathname socket the test listens on; yields what connections sent."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    server.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                with contextlib.suppress(OSError):
                    received.append(conn.recv(100) or b"(connected)")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        stop.set()
        thread.join()
        server.close()


@contextlib.contextmanager
def tmux_server(socket_path: Path) -> Iterator[None]:
    """A real tmux server of the test's own, on ``socket_path``."""
    if shutil.which("tmux") is None:
        pytest.skip("needs tmux")
    base = ["tmux", "-S", str(socket_path), "-f", "/dev/null"]
    subprocess.run([*base, "new-session", "-d", "-s", "t", "sleep 600"], check=True, timeout=20)
    try:
        yield
    finally:
        subprocess.run([*base, "kill-server"], check=False, timeout=20, capture_output=True)


def test_variables_pointing_at_a_socket_or_an_agent_are_dropped(tmp_path: Path) -> None:
    sock = tmp_path / "service.sock"
    with unix_listener(sock):
        env = {
            "TMUX": f"{sock},123,0",
            "TMUX_PANE": "%0",
            "SSH_AUTH_SOCK": str(sock),
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus",
            "DOCKER_HOST": "unix:///var/run/docker.sock",
            "WAYLAND_DISPLAY": "wayland-0",
            "XDG_RUNTIME_DIR": "/run/user/0",
            "MY_TOOL_ENDPOINT": str(sock),  # a name no list knows: the value is a socket
            "OTHER_ENDPOINT": f"unix:{tmp_path}/gone.sock",
            "PLAIN_PATH": str(tmp_path),
            "LANG": "C.UTF-8",
        }
        kept = scrubbed_environment(env)
    assert kept == {"PLAIN_PATH": str(tmp_path), "LANG": "C.UTF-8"}


def test_credentials_inside_urls_are_stripped_and_the_rest_kept() -> None:
    env = {
        "DATABASE_URL": "postgres://bob:hunter2-db@db.internal:5432/app",
        "HTTPS_PROXY": "http://proxyuser:hunter2-proxy@proxy:3128",
        "SENTRY_DSN": "https://hunter2-dsn@o1.ingest.example/5",
        "MIRRORS": "https://a:hunter2-a@one.example/x,https://two.example/y",
        "EMAIL": "someone@example.org",
    }
    kept = scrubbed_environment(env)
    assert not [value for value in kept.values() if "hunter2" in value]
    assert kept["DATABASE_URL"] == "postgres://db.internal:5432/app"
    assert kept["HTTPS_PROXY"] == "http://proxy:3128"
    assert kept["SENTRY_DSN"] == "https://o1.ingest.example/5"
    assert kept["MIRRORS"] == "https://one.example/x,https://two.example/y"
    assert kept["EMAIL"] == "someone@example.org"


@confined
async def test_url_credentials_never_reach_the_command(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://bob:hunter2-db@db.internal:5432/app")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxyuser:hunter2-proxy@proxy:3128")
    output = await run(ctx, "env; echo done")
    assert "hunter2" not in output.text
    assert "DATABASE_URL=postgres://db.internal:5432/app" in output.text
    assert "done" in output.text


@confined
async def test_tmux_named_by_the_apps_environment_runs_nothing_for_the_command(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``$TMUX`` of the app (it runs in tmux) names the server's socket; ``run-shell`` through it
    would run outside the sandbox and make the marker."""
    sock = tmp_path / "tmux-host.sock"
    marker = tmp_path / "OUTSIDE-tmux-env"
    with tmux_server(sock):
        monkeypatch.setenv("TMUX", f"{sock},1,0")
        monkeypatch.setenv("TMUX_PANE", "%0")
        output = await run(
            ctx, f'tmux -S "${{TMUX%%,*}}" run-shell \'touch {marker}\'; echo "[$TMUX]"'
        )
    assert not marker.exists(), output.text
    assert "[]" in output.text
