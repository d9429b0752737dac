"""The automatic prune (checkpoints/daily.py): at most once a day by its stamp, in a thread of its
own that never raises, and started by the host the app and `run` open."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from tui_agent.approval.approver import HeadlessApprover
from tui_agent.checkpoints.daily import (
    DAY_S,
    STAMP,
    THREAD_NAME,
    claim,
    prune_if_due,
    start_daily_prune,
)
from tui_agent.logs import setup_logging
from tui_agent.wiring.host import open_host
from tui_agent.wiring.host_options import HostOptions

from .prune_helpers import World, write
from .sessions_cli_helpers import Cli


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    """The app's own log, in a folder of the test's (what the app and `run` set up)."""
    path = setup_logging(directory=tmp_path / "logs")
    assert path is not None
    return path


async def _old_session(world: World) -> str:
    (world.workspace / "a.txt").write_text("a before\n")
    old = await world.session(write("a.txt", "a1\n"))
    world.age(old, 40)
    world.age_checkpoints()
    return old


def test_no_checkpoints_folder_no_stamp(tmp_path: Path) -> None:
    root = tmp_path / "checkpoints"
    assert not claim(root, time.time())
    assert prune_if_due(30, root=root, sessions=tmp_path / "sessions") is None
    assert not root.exists()  # nothing is made


def test_the_stamp_allows_one_prune_a_day(tmp_path: Path) -> None:
    root = tmp_path / "checkpoints"
    root.mkdir()
    now = time.time()
    assert claim(root, now)
    stamp = root / STAMP
    assert stamp.stat().st_mtime == pytest.approx(now, abs=1)
    assert stamp.read_text() == f"{now:.0f}\n"
    assert not claim(root, now)
    assert not claim(root, now + DAY_S - 60)
    assert claim(root, now + DAY_S + 1)
    os.utime(stamp, (now + 10 * DAY_S, now + 10 * DAY_S))  # the clock went back
    assert claim(root, now)
    stamp.write_text("")  # made, never written (a crash right after it was made): due
    os.utime(stamp, (now, now))
    assert claim(root, now)


async def test_a_due_prune_prunes_and_the_next_waits(tmp_path: Path) -> None:
    world = World(tmp_path)
    await _old_session(world)
    now = time.time()
    report = prune_if_due(30, root=world.root, sessions=world.sessions, now=now)
    assert report is not None and [s.action for s in report.stores] == ["removed"]
    assert not world.folder.path.exists()
    await _old_session(world)
    assert prune_if_due(30, root=world.root, sessions=world.sessions, now=now + 3600) is None
    assert world.folder.path.exists()  # a day has not passed
    later = prune_if_due(30, root=world.root, sessions=world.sessions, now=now + DAY_S + 1)
    assert later is not None and not world.folder.path.exists()


async def test_the_thread_logs_what_failed_and_never_raises(tmp_path: Path, log_file: Path) -> None:
    world = World(tmp_path)
    await _old_session(world)
    (world.root / STAMP).mkdir()  # the stamp cannot be written
    seen: list[BaseException] = []
    old_hook = threading.excepthook
    threading.excepthook = lambda args: seen.append(args.exc_value)  # type: ignore[assignment]
    try:
        thread = start_daily_prune(30, root=world.root, sessions=world.sessions)
        assert thread.daemon and thread.name == THREAD_NAME
        thread.join(60)
    finally:
        threading.excepthook = old_hook
    assert not thread.is_alive() and seen == []
    logged = log_file.read_text()
    assert "ERROR tui_agent.checkpoints.daily: the daily prune of checkpoints failed" in logged
    assert "IsADirectoryError" in logged
    assert world.folder.path.exists()  # nothing was removed


def _prune_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD_NAME]


async def test_the_host_starts_the_days_prune(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log_file: Path
) -> None:
    """The host of the app and `run` starts it without waiting for it; it logs what it did."""
    cli = Cli(tmp_path, monkeypatch)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("TUI_AGENT_DEMO_PACE", "0")
    data = cli.data / "tui-agent"
    world = World(tmp_path, checkpoints=data / "checkpoints", sessions=data / "sessions")
    await _old_session(world)
    for _ in range(2):  # the second start the same day prunes nothing
        host = await open_host(HostOptions(profile="demo", workspace=str(world.workspace)),
                               HeadlessApprover("never"))  # fmt: skip
        await host.close()
        # Every prune thread alive, not the first found: another test's host in this worker
        # may have left one running under the same name, and joining it alone let the assert
        # below run before this host's prune had ended.
        for thread in _prune_threads():
            await asyncio.to_thread(thread.join, 60)
    # The new session of the workspace may or may not be written when the prune reads the
    # sessions: the folder goes, or only what the old session kept.
    assert world.kept_blobs() == set()
    assert (world.root / STAMP).is_file()
    said = [
        line
        for line in log_file.read_text().splitlines()
        if f"checkpoint prune: {world.workspace} " in line
    ]
    assert len(said) == 1 and (" removed: 1 blob(s)" in said[0] or " pruned: 1 blob(s)" in said[0])
