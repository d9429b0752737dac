"""The sandbox closes host services: no variable pointing at a socket or an agent reaches a
command, no credential inside a URL does, and no pathname socket of the host answers it.

Real parts: a real tmux server of the test's own (``tmux -S``), whose socket ``$TMUX`` names in
the app's environment, and a real ``AF_UNIX`` listener of the test's own. A command that reached
either would run code outside the sandbox (``tmux run-shell`` runs in the tmux server, unconfined).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import replace
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


@pytest.mark.heavy
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


CONNECT = (
    "import socket, sys\n"
    "s = socket.socket(socket.AF_UNIX)\n"
    "try:\n"
    "    s.connect(sys.argv[1]); s.sendall(b'leaked'); print('CONNECTED')\n"
    "except OSError as e:\n"
    "    print('REFUSED', e)\n"
)


def connect_command(ctx: ToolContext, address: str) -> str:
    script = ctx.workspace / "connect.py"
    script.write_text(CONNECT, encoding="utf-8")
    return f"{sys.executable} -I -S {script} '{address}'"


@confined
async def test_a_host_pathname_socket_outside_the_workspace_does_not_answer(
    ctx: ToolContext, tmp_path: Path
) -> None:
    sock = tmp_path / "host-service.sock"
    with unix_listener(sock) as received:
        output = await run(ctx, connect_command(ctx, str(sock)))
    assert "CONNECTED" not in output.text, output.text
    assert received == []


@confined
async def test_a_socket_in_home_is_covered(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Home is seen (it is read), but an agent's socket in it (gpg-agent's) does not answer."""
    home = tmp_path / "home"
    (home / ".gnupg").mkdir(parents=True)
    (home / "notes.txt").write_text("plain notes\n")
    monkeypatch.setenv("HOME", str(home))
    with unix_listener(home / ".gnupg" / "S.gpg-agent") as received:
        output = await run(
            ctx, f"cat {home}/notes.txt; " + connect_command(ctx, f"{home}/.gnupg/S.gpg-agent")
        )
    assert "plain notes" in output.text
    assert "CONNECTED" not in output.text, output.text
    assert received == []


@confined
async def test_a_socket_inside_the_workspace_still_answers(ctx: ToolContext) -> None:
    with unix_listener(ctx.workspace / "own.sock") as received:
        output = await run(ctx, connect_command(ctx, str(ctx.workspace / "own.sock")))
    assert "CONNECTED" in output.text, output.text
    assert received == [b"leaked"]


@confined
async def test_an_abstract_host_socket_does_not_answer_even_with_the_network_on(
    ctx: ToolContext, tmp_path: Path
) -> None:
    if detect().landlock_abi < 6:
        pytest.skip("needs Landlock ABI 6 (scopes)")
    name = f"\0tui-agent-test-{os.getpid()}-{tmp_path.name}"
    server = socket.socket(socket.AF_UNIX)
    server.bind(name)
    server.listen()
    try:
        ctx = replace(ctx, sandbox=replace(ctx.sandbox, network=True))
        script = ctx.workspace / "abstract.py"
        script.write_text(CONNECT.replace("sys.argv[1]", repr(name)), encoding="utf-8")
        output = await run(ctx, f"{sys.executable} -I -S {script}")
    finally:
        server.close()
    assert "REFUSED" in output.text, output.text


@pytest.mark.heavy
@confined
async def test_tmux_given_the_host_socket_runs_nothing_for_the_command(
    ctx: ToolContext, tmp_path: Path
) -> None:
    """The socket's path given outright (no variable to scrub): the mount namespace hides it."""
    sock = tmp_path / "tmux-host-explicit.sock"
    marker = tmp_path / "OUTSIDE-tmux-socket"
    with tmux_server(sock):
        output = await run(ctx, f"tmux -S {sock} run-shell 'touch {marker}'; echo finished")
    assert not marker.exists(), output.text
    assert "finished" in output.text


@confined
async def test_process_1_does_not_show_the_apps_command_line(ctx: ToolContext) -> None:
    output = await run(ctx, "tr '\\0' ' ' < /proc/1/cmdline; echo; cat /proc/1/comm")
    own = " ".join(sys.argv)
    assert "pytest" not in output.text and own not in output.text, output.text
    assert "sandbox-init" in output.text


def test_doctor_says_whether_host_services_are_closed() -> None:
    from tui_agent.sandbox.detect import Capabilities
    from tui_agent.sandbox.policy import SandboxPolicy
    from tui_agent.sandbox.protections import report

    full = Capabilities(7, "", True, "", True, "", True)
    fallback = Capabilities(7, "", False, "no user namespaces", False, "no user namespaces", True)
    line = "host services (no socket outside the workspace answers)"
    assert f"[active ] {line}" in report(SandboxPolicy(), full)
    text = report(SandboxPolicy(), fallback)
    assert f"[MISSING] {line}" in text and "pathname sockets stay reachable" in text


def test_a_home_of_slash_still_gets_tmp_and_run_covered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Home is bound back, never left uncovered: HOME=/ (a service account) would otherwise
    leave every host socket in reach."""
    from tui_agent.sandbox.host_view import host_view

    monkeypatch.setenv("HOME", "/")
    view = host_view(os.path.realpath("."), (), network=False)
    assert "/tmp" in view.covered and "/run" in view.covered


@confined
async def test_a_socket_beside_the_workspace_is_covered() -> None:
    """A folder above the workspace (where other projects, and their servers, live), outside
    /tmp (which is covered whole): a folder in the checkout, removed after."""
    root = Path(__file__).resolve().parents[2]
    try:
        parent = Path(tempfile.mkdtemp(prefix=".sandbox-beside-", dir=root))
    except OSError:
        pytest.skip("the checkout is not writable")
    try:
        (parent / "ws").mkdir()
        ctx = ToolContext(workspace=(parent / "ws").resolve(), command_timeout_s=30)
        with unix_listener(parent / "beside.sock") as received:
            output = await run(ctx, connect_command(ctx, str(parent / "beside.sock")))
    finally:
        shutil.rmtree(parent, ignore_errors=True)
    assert "CONNECTED" not in output.text, output.text
    assert received == []


@confined
async def test_the_hosts_system_v_ipc_is_not_seen(ctx: ToolContext) -> None:
    if shutil.which("ipcmk") is None or shutil.which("ipcs") is None:
        pytest.skip("needs ipcmk and ipcs")
    made = subprocess.run(["ipcmk", "-M", "4096"], capture_output=True, text=True, check=True)
    shm_id = made.stdout.strip().rsplit(" ", 1)[-1]
    try:
        assert shm_id in subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout
        output = await run(ctx, "ipcs -m; echo listed")
    finally:
        subprocess.run(["ipcrm", "-m", shm_id], check=False)
    assert "listed" in output.text
    assert f" {shm_id} " not in output.text, output.text


@confined
async def test_a_socket_made_in_a_denied_folder_after_the_last_scan_does_not_answer(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An SSH ControlMaster socket (it runs commands on a remote host through a connection
    already authenticated) made in ~/.ssh between two calls: the socket scan of the first call
    is still fresh, but the denied folder is hidden whole."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    first = await run(ctx, "echo first")
    assert "first" in first.text
    with unix_listener(home / ".ssh" / "cm-git@example:22") as received:
        output = await run(ctx, connect_command(ctx, f"{home}/.ssh/cm-git@example:22"))
    assert "CONNECTED" not in output.text, output.text
    assert received == []


@confined
async def test_reading_in_a_hidden_denied_folder_is_explained(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    monkeypatch.setenv("HOME", str(home))
    output = await run(ctx, f"cat {home}/.ssh/id_ed25519")
    assert "PRIVATE KEY" not in output.text
    assert "No such file" in output.text, output.text
    assert "the denied paths (credentials, the app's own files) cannot be read" in output.text
