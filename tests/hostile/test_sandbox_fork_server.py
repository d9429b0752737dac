"""The sandbox's fork server (``sandbox/fork_server.py``, ``sandbox/spawner.py``), with real
processes: the commands it starts die with the app even on kill -9, a cancelled call's group
is gone, a dead server makes calls fork the app again (or ends the call it was running, never
unconfined), and a command holds no file of the app or the server beyond its streams."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tui_agent.sandbox import SandboxPolicy, confinement, detect, spawner
from tui_agent.sandbox.confine import plan_for
from tui_agent.sandbox.launch import SETUP_FAILED
from tui_agent.tools.jobs import JobTable
from tui_agent.tools.process import ProcessStartError, run_in_process_group

from ..support.waiting import ends, poll
from .processes import running_with

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not (detect().landlock_abi and detect().namespaces),
    reason="needs Landlock and user namespaces (see tui-agent doctor)",
)


def _ready() -> spawner._Server:
    spawner.prepare()
    found = poll(spawner.server, "the fork server to be ready")
    assert found is not None
    return found


@pytest.fixture
def server() -> Iterator[spawner._Server]:
    yield _ready()


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return int(handle.read().rsplit(b")", 1)[1].split()[1])


async def _running(marker: str) -> None:
    """Until the call's shell and sleeps run (without blocking the loop that starts them)."""
    for _ in range(300):
        if len(running_with(marker)) >= 2:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the call's processes never ran")


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError, ValueError):
            if entry.isdigit() and _parent(int(entry)) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


async def _call(workspace: Path, argv: list[str], timeout_s: float = 30) -> tuple[int | None, str]:
    with confinement(SandboxPolicy(), workspace) as launch:
        result = await run_in_process_group(
            argv,
            cwd=workspace,
            env={**os.environ, **launch.env},
            timeout_s=timeout_s,
            output_cap=100_000,
            preexec=launch.preexec,
            spawn=launch.spawn,
        )
    return result.returncode, result.output.decode("utf-8", "replace")


async def test_a_call_is_forked_by_the_server_not_the_app(
    server: spawner._Server, tmp_path: Path
) -> None:
    assert server.process is not None
    with confinement(SandboxPolicy(), tmp_path) as launch:
        assert launch.spawn is not None
        read_fd, write_fd = os.pipe()
        try:
            process = await launch.spawn(["sleep", "30"], tmp_path, dict(os.environ), write_fd)
        finally:
            os.close(write_fd)
            os.close(read_fd)
        try:
            assert isinstance(process, spawner.ServerProcess)
            assert _parent(process.pid) == server.process.pid
            assert os.getpgid(process.pid) == process.pid  # the leader of the call's group
            assert os.getsid(process.pid) == process.pid
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            assert await ends(process.wait(), "the killed call") == -signal.SIGKILL
            process.close()


async def test_output_exit_codes_and_a_missing_program_as_before(
    server: spawner._Server, tmp_path: Path
) -> None:
    code, out = await _call(tmp_path, ["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (code, out) == (3, "out\nerr\n")
    code, _ = await _call(tmp_path, ["sh", "-c", "kill -TERM $$"])
    assert code == -signal.SIGTERM
    with pytest.raises(ProcessStartError, match="No such file or directory"):
        await _call(tmp_path, ["no-such-program-anywhere"])
    with pytest.raises(ProcessStartError, match="No such file or directory"):
        await _call(tmp_path / "gone", ["true"])
    assert spawner.server() is server  # none of it hurt the server


async def test_the_command_holds_only_its_streams(server: spawner._Server, tmp_path: Path) -> None:
    kept = os.open(os.devnull, os.O_RDONLY)  # inheritable, in the app
    os.set_inheritable(kept, True)
    try:
        code, out = await _call(tmp_path, ["ls", "/proc/self/fd"])
    finally:
        os.close(kept)
    assert code == 0, out
    assert sorted(int(fd) for fd in out.split()) == [0, 1, 2, 3]  # 3: ls's own listing


async def test_a_setup_failure_ends_the_call_and_never_runs_the_command(
    server: spawner._Server, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    plan = plan_for(SandboxPolicy(), tmp_path, (), detect(), str(tmp_path))
    # A plan the launcher cannot carry out: a cgroup to join that does not exist.
    plan = replace(plan, pids_procs="/nonexistent/cgroup.procs")
    report_read, report_write = os.pipe()
    read_fd, write_fd = os.pipe()
    spawn = spawner.spawner(plan, report_write, _never)
    try:
        process = await spawn(["touch", str(ran)], tmp_path, dict(os.environ), write_fd)
        os.close(write_fd)
        assert await ends(process.wait(), "the call") == SETUP_FAILED
        process.close()
        output = os.read(read_fd, 4096).decode()
    finally:
        for fd in (read_fd, report_read, report_write):
            os.close(fd)
    assert output.startswith("tui-agent sandbox: ")
    assert "cannot join the process limit's cgroup" in output
    assert not ran.exists()


def _never() -> None:
    raise AssertionError("the fork server is running: the app must not fork the command")


async def test_a_cancelled_call_leaves_no_process(
    server: spawner._Server, tmp_path: Path, marker: str
) -> None:
    work = asyncio.ensure_future(_call(tmp_path, ["sh", "-c", "setsid sleep 60 & sleep 60"]))
    await _running(marker)
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await ends(work, "the cancelled call")
    assert running_with(marker) == []
    assert spawner.server() is server


async def test_a_dead_server_makes_calls_fork_the_app_again(tmp_path: Path) -> None:
    server = _ready()
    assert server.process is not None
    server.process.kill()
    server.process.wait()
    code, out = await _call(tmp_path, ["sh", "-c", "echo confined; cat /proc/1/comm"])
    assert (code, out) == (0, "confined\nsandbox-init\n")  # confined all the same
    assert spawner.server() is None
    spawner.stop()
    _ready()  # a new one is started for the tests that follow


async def test_a_server_that_dies_during_a_call_ends_it(tmp_path: Path, marker: str) -> None:
    server = _ready()
    assert server.process is not None
    work = asyncio.ensure_future(_call(tmp_path, ["sh", "-c", "sleep 60 & sleep 60"]))
    await _running(marker)
    server.process.kill()
    code, _ = await ends(work, "the call whose server died")
    assert code == -signal.SIGKILL
    poll(lambda: running_with(marker) == [], "the call's processes to end")
    spawner.stop()
    _ready()


async def test_a_server_that_cannot_start_leaves_calls_on_the_old_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawner.stop()
    monkeypatch.setattr(spawner, "_CODE", "import sys; sys.exit(3)")
    spawner.prepare()
    poll(lambda: spawner._server[0].dead or spawner.server(), "the server to fail", ignoring=())
    assert spawner.server() is None
    code, out = await _call(tmp_path, ["sh", "-c", "cat /proc/1/comm"])
    assert (code, out) == (0, "sandbox-init\n")
    spawner.stop()
    monkeypatch.undo()
    _ready()


_APP = """
import asyncio, os, sys, time
from pathlib import Path
from tui_agent.sandbox import SandboxPolicy, confinement, spawner
from tui_agent.tools.process import run_in_process_group

async def main():
    spawner.prepare()
    while spawner.server() is None:
        time.sleep(0.01)
    print(spawner.server().process.pid, flush=True)
    workspace = Path(sys.argv[1])
    with confinement(SandboxPolicy(), workspace) as launch:
        await run_in_process_group(
            ["sh", "-c", "setsid sh -c 'sleep 60' & sleep 60"], cwd=workspace,
            env={**os.environ, **launch.env}, timeout_s=60, output_cap=1000,
            preexec=launch.preexec, spawn=launch.spawn,
        )
asyncio.run(main())
"""


def test_kill_9_of_the_app_ends_the_server_and_every_command(tmp_path: Path, marker: str) -> None:
    app = subprocess.Popen(
        [sys.executable, "-c", _APP, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert app.stdout is not None
    server_pid = int(app.stdout.readline())
    # The app, the shell and its two sleeps (the launcher and the init carry the server's
    # empty environment).
    poll(lambda: len(running_with(marker)) >= 4, "the command's processes to run")
    assert _children(server_pid), "the server forked the launcher"
    app.kill()
    assert app.wait(10) == -signal.SIGKILL
    poll(lambda: running_with(marker) == [], "every command process to end")
    poll(lambda: not _alive(server_pid), "the server to end")


async def test_a_background_job_runs_through_the_server_and_stops(
    server: spawner._Server, tmp_path: Path, marker: str
) -> None:
    assert server.process is not None
    table = JobTable()
    job = await table.start(
        "sleep 60",
        ["sh", "-c", "sleep 60 & sleep 60"],
        cwd=tmp_path,
        env=dict(os.environ),
        confine=lambda: confinement(SandboxPolicy(), tmp_path),
    )
    assert job.pgid is not None
    assert _parent(job.pgid) == server.process.pid
    await _running(marker)
    assert await ends(table.stop(job, grace_s=1), "the job's stop")
    assert job.state == "stopped"
    assert running_with(marker) == []
    assert not _alive(job.pgid)
