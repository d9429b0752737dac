"""The OS sandbox of commands, wall by wall, with real processes and real kernels (no mocks).

Each test runs ``run_command`` under a policy and checks what the kernel let through: writes
outside the workspace, reads of denied paths, a loopback server in the host's network, the
app's own environment through /proc, processes that outlive the call (``setsid``, kill -9 and
SIGHUP of the app), a fork bomb and a memory hog. ``off`` mode behaves as before the sandbox.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tui_agent.sandbox import SandboxMode, detect
from tui_agent.sandbox.pids_cgroup import PREFIX, pids_parent
from tui_agent.tools import ToolContext, ToolOutput, builtin_registry

from ..support.waiting import ends
from ..tools_helpers import call
from .processes import running_with

REGISTRY = builtin_registry()
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not (detect().landlock_abi and detect().namespaces),
    reason="needs Landlock and user namespaces (see tui-agent doctor)",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of our own with credentials in it, so denying ``~/.ssh`` denies these."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("aws_secret\n")
    (home / ".config" / "gcloud").mkdir(parents=True)
    (home / ".config" / "gcloud" / "token").write_text("gcloud_secret\n")
    (home / ".config" / "other.txt").write_text("fine to read\n")
    (home / ".netrc").write_text("machine x password y\n")
    (home / "notes.txt").write_text("plain notes\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def ctx(tmp_path: Path, home: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    app_dir = tmp_path / "app-data"
    app_dir.mkdir()
    (app_dir / "sessions.jsonl").write_text("APP-SESSION-RECORD\n")
    return ToolContext(workspace=workspace.resolve(), protected=(app_dir,), command_timeout_s=30)


async def run(ctx: ToolContext, command: str, **policy: object) -> ToolOutput:
    if policy:
        ctx = replace(ctx, sandbox=replace(ctx.sandbox, **policy))  # type: ignore[arg-type]
    return await call(REGISTRY, ctx, "run_command", json.dumps({"command": command}))


async def test_writes_inside_the_workspace_succeed_and_outside_fail(
    ctx: ToolContext, tmp_path: Path
) -> None:
    out = await run(ctx, f"echo in > inside.txt && echo out > {tmp_path}/outside.txt")
    assert (ctx.workspace / "inside.txt").read_text() == "in\n"
    assert not (tmp_path / "outside.txt").exists()
    assert out.is_error
    assert "Permission denied" in out.text
    assert "the sandbox (workspace-write, no network) may have blocked this" in out.text
    assert "re-run it unconfined" in out.text


async def test_read_only_mode_writes_only_the_private_temporary_folder(ctx: ToolContext) -> None:
    out = await run(
        ctx, 'echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo w > x.txt', mode=SandboxMode.READ_ONLY
    )
    assert out.text.startswith("t\n")
    assert not (ctx.workspace / "x.txt").exists()
    assert "no writes are allowed in read-only mode" in out.text


async def test_each_denied_path_is_unreadable_and_the_rest_readable(
    ctx: ToolContext, home: Path
) -> None:
    denied = [
        home / ".ssh" / "id_ed25519",
        home / ".aws" / "credentials",
        home / ".config" / "gcloud" / "token",
        home / ".netrc",
        ctx.protected[0] / "sessions.jsonl",
    ]
    for path in denied:
        out = await run(ctx, f"cat {path}")
        assert out.is_error, path
        # Refused by Landlock, or not there at all: a folder under /tmp that the command need
        # not see is hidden by the private /tmp (see sandbox/host_view.py).
        assert "Permission denied" in out.text or "No such file" in out.text, (path, out.text)
        assert path.read_text().strip() not in out.text
    out = await run(ctx, f"cat {home}/notes.txt {home}/.config/other.txt /etc/hostname")
    assert not out.is_error, out.text
    assert "plain notes" in out.text and "fine to read" in out.text


async def test_shell_startup_files_histories_and_password_files_are_unreadable(
    ctx: ToolContext, home: Path
) -> None:
    """Files that often hold an exported token (``~/.bashrc``) or a password are denied by
    default, though home itself is read."""
    secret_files = (".bashrc", ".profile", ".zshrc", ".bash_history", ".pgpass", ".my.cnf")
    for name in secret_files:
        (home / name).write_text(f"export GITHUB_TOKEN=ghp_secret_in_{name[1:]}\n")
    for name in secret_files:
        out = await run(ctx, f"cat {home / name}")
        assert out.is_error and "Permission denied" in out.text, (name, out.text)
        assert "ghp_secret" not in out.text
    out = await run(ctx, f"cat {home}/notes.txt")
    assert not out.is_error and "plain notes" in out.text, out.text


async def test_denied_folders_inside_the_workspace_are_neither_read_nor_written(
    ctx: ToolContext,
) -> None:
    """The workspace is granted around a denied folder in it, never over it (home as the
    workspace, with ``~/.ssh`` and the app's data folder in it)."""
    ws = ctx.workspace
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "id_ed25519").write_text("WS PRIVATE KEY\n")
    app_dir = ws / ".local" / "share" / "tui-agent"
    app_dir.mkdir(parents=True)
    (app_dir / "sessions.jsonl").write_text("APP-SESSION-RECORD\n")
    (ws / "notes.txt").write_text("plain notes\n")
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text("print(1)\n")
    ctx = replace(
        ctx,
        protected=(app_dir,),
        sandbox=replace(ctx.sandbox, denied=(*ctx.sandbox.denied, str(ws / ".ssh"))),
    )
    for path in (ws / ".ssh" / "id_ed25519", app_dir / "sessions.jsonl"):
        out = await run(ctx, f"cat {path}")
        assert out.is_error and "Permission denied" in out.text, (path, out.text)
        assert path.read_text().strip() not in out.text
        out = await run(ctx, f"echo x >> {path}")
        assert out.is_error and "Permission denied" in out.text, (path, out.text)
        out = await run(ctx, f"echo x > {path.parent}/new.txt")
        assert out.is_error, (path, out.text)
        assert not (path.parent / "new.txt").exists()
    assert (ws / ".ssh" / "id_ed25519").read_text() == "WS PRIVATE KEY\n"
    assert (app_dir / "sessions.jsonl").read_text() == "APP-SESSION-RECORD\n"
    out = await run(
        ctx,
        "cat notes.txt src/main.py && echo more >> notes.txt && echo new > src/new.py "
        "&& mkdir -p src/pkg && echo p > src/pkg/p.py && rm src/main.py && echo ok",
    )
    assert not out.is_error, out.text
    assert "plain notes" in out.text and "print(1)" in out.text
    assert (ws / "notes.txt").read_text() == "plain notes\nmore\n"
    assert (ws / "src" / "new.py").read_text() == "new\n"
    assert (ws / "src" / "pkg" / "p.py").read_text() == "p\n"
    assert not (ws / "src" / "main.py").exists()


@contextlib.contextmanager
def loopback_server() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                conn, _ = server.accept()
                conn.sendall(b"hello from the host\n")
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        server.close()


CONNECT = (
    "{python} -c \"import socket; s=socket.create_connection(('127.0.0.1', {port}), timeout=3);"
    ' print(s.recv(100).decode())"'
)


async def test_a_loopback_server_is_unreachable_without_network_and_reachable_with_it(
    ctx: ToolContext,
) -> None:
    with loopback_server() as port:
        command = CONNECT.format(python=sys.executable, port=port)
        out = await run(ctx, command)
        assert out.is_error and "hello from the host" not in out.text
        assert "it has no network" in out.text
        out = await run(ctx, command, network=True)
        assert not out.is_error, out.text
        assert "hello from the host" in out.text


async def test_without_namespaces_landlock_still_refuses_tcp_and_outside_writes(
    ctx: ToolContext, tmp_path: Path
) -> None:
    """The fallback where user namespaces are missing: Landlock alone (without the seccomp
    filter, which refuses the socket itself, so that Landlock's own TCP rule is what is tried)."""
    degraded = replace(detect(), namespaces=False, fresh_proc=False, seccomp=False)
    ctx = replace(ctx, capabilities=degraded)
    with loopback_server() as port:
        out = await run(ctx, CONNECT.format(python=sys.executable, port=port))
    assert out.is_error and "hello from the host" not in out.text
    out = await run(ctx, f"echo x > {tmp_path}/outside.txt")
    assert out.is_error and not (tmp_path / "outside.txt").exists()


SEND_UDP = (
    '{python} -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM);'
    " s.sendto(b'leaked', ('127.0.0.1', {port}))\""
)


@pytest.mark.skipif(not detect().seccomp, reason="needs seccomp on x86_64 or aarch64")
async def test_without_namespaces_no_udp_datagram_leaves(ctx: ToolContext) -> None:
    """The same fallback: Landlock cannot refuse UDP (DNS included); the seccomp filter does."""
    ctx = replace(ctx, capabilities=replace(detect(), namespaces=False, fresh_proc=False))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server:
        server.bind(("127.0.0.1", 0))
        server.settimeout(1.0)
        command = SEND_UDP.format(python=sys.executable, port=server.getsockname()[1])
        out = await run(ctx, command)
        assert out.is_error and "Permission denied" in out.text, out.text
        with pytest.raises(TimeoutError):
            server.recv(100)
        out = await run(ctx, command, network=True)  # the switch on: it goes out
        assert not out.is_error, out.text
        assert server.recv(100) == b"leaked"


async def test_the_apps_environment_and_other_processes_are_invisible(
    ctx: ToolContext, marker: str
) -> None:
    me = os.getpid()
    command = f"cat /proc/{me}/environ; cat /proc/1/environ; ls /proc | grep -c '^[0-9]'"
    out = await run(ctx, command)
    assert marker not in out.text
    assert "Permission denied" in out.text or "No such file" in out.text
    count = int(out.text.split("\n")[-2])
    assert count <= 5, out.text  # the init, the shell, ls and grep


async def test_a_setsid_daemon_is_gone_when_the_call_ends(ctx: ToolContext, marker: str) -> None:
    # Bounded below the daemons' 60 s: a call that waited for them would still be running.
    command = "setsid sh -c 'sleep 60' & (sleep 60 &) ; echo started"
    out = await ends(run(ctx, command), "the call")
    assert "started" in out.text
    assert "were stopped" in out.text
    assert running_with(marker) == []


async def test_a_fork_bomb_ends_with_a_clear_result(ctx: ToolContext, marker: str) -> None:
    # Where the kernel bounds the count (RLIMIT_NPROC for a user, a pids cgroup for root) the
    # bomb is unbounded: forks past the limit fail at once. Root with no cgroup to make has
    # only the init's 20 ms count, which an unbounded bomb outruns by thousands of processes
    # (enough to starve tests running beside it): there it gets a bomb of bounded depth, up to
    # 1,023 processes, still far past the limit.
    kernel_bounded = os.geteuid() != 0 or pids_parent() is not None
    bounded = "f() { if [ $1 -lt 9 ]; then f $(($1+1)) & f $(($1+1)) & wait; else sleep 5; fi; }"
    bomb = "f() { f & f & wait; }; f" if kernel_bounded else bounded + "; f 0"
    out = await ends(run(ctx, bomb, max_processes=64), "the fork bomb's call")
    # Killed by the count, or refused by the kernel (the shell says "Cannot fork" and may end
    # well): either way the result says why.
    assert out.is_error or kernel_bounded
    assert "ran more than 64 processes" in out.text or "at most 64 processes" in out.text
    assert running_with(marker) == []


@pytest.mark.skipif(
    os.geteuid() != 0 or pids_parent() is None, reason="needs root and a pids cgroup to make"
)
async def test_as_root_the_process_limit_is_a_pids_cgroup_removed_after_the_call(
    ctx: ToolContext,
) -> None:
    """As root RLIMIT_NPROC does not bind: the kernel refuses the 9th process of a command
    allowed 8, at once (no process is started to be counted and killed later), the command
    is told, and the call's cgroup is gone afterwards."""
    parent = pids_parent()
    assert parent is not None
    mine = f"{PREFIX}{os.getpid()}-"
    command = "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 2 & done; wait"
    out = await run(ctx, command, max_processes=8)
    assert "Cannot fork" in out.text or "Resource temporarily unavailable" in out.text
    assert "at most 8 processes" in out.text
    assert not [entry for entry in parent.iterdir() if entry.name.startswith(mine)]


async def test_a_command_may_run_exactly_its_process_limit(ctx: ToolContext) -> None:
    """Four processes of a command allowed four (the shell and three sleeps), held for longer
    than the init's 20 ms count: neither the kernel nor the count stops it (the count once took
    the init for one of the command's and stopped it whenever it looked during such a moment)."""
    out = await run(
        ctx, "sleep 0.5 & sleep 0.5 & sleep 0.5 & wait; echo all four ran", max_processes=4
    )
    assert not out.is_error, out.text
    assert "all four ran" in out.text and "processes at once" not in out.text


async def test_a_memory_hog_ends_with_a_clear_result(ctx: ToolContext) -> None:
    out = await run(ctx, f"{sys.executable} -c 'x = bytearray(2 << 30)'", memory_mb=512)
    assert out.is_error
    assert "MemoryError" in out.text
    assert "at most 512 MiB of memory" in out.text


async def test_off_mode_behaves_as_before(ctx: ToolContext, tmp_path: Path, home: Path) -> None:
    out = await run(
        ctx,
        f"echo out > {tmp_path}/outside.txt; cat {home}/.ssh/id_ed25519; ls /proc/{os.getpid()}",
        mode=SandboxMode.OFF,
    )
    assert not out.is_error, out.text
    assert (tmp_path / "outside.txt").read_text() == "out\n"
    assert "PRIVATE KEY" in out.text


_APP = """
import asyncio, json, sys
from pathlib import Path
from tui_agent.tools import ToolContext, builtin_registry
from tui_agent.tools.process_limits import install_exit_signals
from tui_agent.tools.validation import validate_call
from tui_agent.stream.turn import ToolCall

install_exit_signals()
async def main():
    registry = builtin_registry()
    command = "setsid sh -c 'sleep 60' & sleep 60"
    call = validate_call(registry, ToolCall("c1", "run_command", json.dumps({"command": command})))
    ctx = ToolContext(workspace=Path(sys.argv[1]))
    task = asyncio.ensure_future(call.spec.run(call.args, ctx))
    await asyncio.sleep(0.5)
    print("started", flush=True)
    await task
asyncio.run(main())
"""


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGHUP, signal.SIGTERM])
def test_no_command_process_outlives_the_app(ctx: ToolContext, marker: str, signum: int) -> None:
    """kill -9 gives the app no chance to clean up: the namespace dies with it anyway."""
    child = subprocess.Popen(
        [sys.executable, "-c", _APP, str(ctx.workspace)],
        cwd=ROOT,
        env=os.environ | {marker: "1"},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 10
    while len(running_with(marker)) < 4:  # the app, the launcher, the init, sh, sleeps
        assert time.monotonic() < deadline, running_with(marker)
        time.sleep(0.05)
    child.send_signal(signum)
    assert child.wait(10) == -signum
    deadline = time.monotonic() + 5
    while running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with(marker) == []
