"""Real processes and real file systems: kill -9 mid-append, two writers, a disk that refuses."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_agent.session import SessionLockedError, SessionStore, load_session
from tui_agent.session.codec import decode_line
from tui_agent.session.records import UserRecord

ROOT = Path(__file__).resolve().parent.parent


def _child(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.session_child", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _ready(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line == "ready\n", line + (proc.stderr.read() if proc.stderr else "")


def _kill(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    yield SessionStore(tmp_path / "sessions")


def _session(store: SessionStore) -> str:
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        return w.session_id


def test_kill_9_during_appends_loses_no_complete_record(store: SessionStore) -> None:
    rng = random.Random(20240607)
    deadline = time.monotonic() + 40
    torn_by_kill = 0
    for iteration in range(8):
        if time.monotonic() > deadline:
            break
        session_id = _session(store)
        proc = _child("append", str(store.directory), session_id, str(rng.randrange(10**6)))
        _ready(proc)
        time.sleep(rng.uniform(0.02, 0.4))
        _kill(proc)

        path = store.resolve(session_id)
        data = path.read_bytes()
        complete = data.split(b"\n")[:-1]
        for line in complete:  # every complete line is a whole record
            decode_line(line)
        loaded = load_session(path)
        assert len(loaded.records) == len(complete) - 1, iteration
        if data.endswith(b"\n"):
            assert loaded.problems == []
            # What a power cut would leave: the last record only partly on disk.
            last = data.rstrip(b"\n").rfind(b"\n") + 1
            os.truncate(path, rng.randrange(last + 1, len(data) - 1))
            complete = complete[:-1]
        else:
            torn_by_kill += 1
        torn_at = len(complete) + 1
        loaded = load_session(path)
        assert len(loaded.records) == len(complete) - 1
        assert loaded.problems == [
            f"line {torn_at}: torn record at the end of the file skipped (an interrupted write)"
        ]

        with store.open_for_append(session_id) as writer:
            writer.append(UserRecord(text=f"resumed {iteration}"))
        loaded = load_session(path)
        assert loaded.records[-1] == UserRecord(
            ts=loaded.records[-1].ts, text=f"resumed {iteration}"
        )
        assert len(loaded.records) == len(complete)
        assert loaded.problems == [f"line {torn_at}: torn or corrupt record skipped"]
        path.unlink()
    print(f"tails torn by the kill itself: {torn_by_kill}")


def test_a_second_process_is_refused_and_a_killed_one_leaves_no_lock(store: SessionStore) -> None:
    session_id = _session(store)
    holder = _child("hold", str(store.directory), session_id)
    try:
        _ready(holder)
        with pytest.raises(SessionLockedError, match=f"session {session_id} is open in another"):
            store.open_for_append(session_id)
        other = _child("try", str(store.directory), session_id)
        out, _ = other.communicate(timeout=30)
        assert json.loads(out) == {
            "locked": True,
            "message": f"session {session_id} is open in another tui-agent process",
        }
        with pytest.raises(SessionLockedError):
            store.resume(session_id)
        assert store.load(session_id).records == []  # reading is always allowed
    finally:
        _kill(holder)
    _, writer = store.resume(session_id)  # the kernel dropped the dead process's lock
    with writer:
        writer.append(UserRecord(text="mine now"))
    assert [r.type for r in store.load(session_id).records] == ["user"]


def test_one_process_cannot_take_a_session_twice(store: SessionStore) -> None:
    session_id = _session(store)
    with store.open_for_append(session_id), pytest.raises(SessionLockedError):
        store.open_for_append(session_id)
    store.open_for_append(session_id).close()


def test_a_full_device_degrades_to_memory(store: SessionStore, tmp_path: Path) -> None:
    # /dev/full refuses every write with ENOSPC, for any user: the file behind a session.
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    session_id = _session(store)
    path = store.resolve(session_id)
    path.unlink()
    path.symlink_to("/dev/full")
    with store.open_for_append(session_id) as writer:
        kept = [writer.append(UserRecord(text=f"m{i}")) for i in range(3)]
        assert writer.degraded is not None
        assert "No space left on device" in writer.degraded
        assert "kept in memory only" in writer.degraded
        assert writer.unsaved == kept


def _can_make_a_tmpfs() -> str | None:
    unshare = shutil.which("unshare")
    if unshare is None:
        return "unshare(1) is not installed"
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    probe = subprocess.run(
        [unshare, *flags, "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k t $d"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"cannot mount a tmpfs in a private mount namespace: {probe.stderr.strip()}"
    return None


def test_a_small_file_system_that_fills_up_then_turns_read_only(tmp_path: Path) -> None:
    reason = _can_make_a_tmpfs()
    if reason is not None:
        pytest.skip(reason)
    mountpoint = tmp_path / "mnt"
    mountpoint.mkdir()
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    done = subprocess.run(
        [
            "unshare",
            *flags,
            sys.executable,
            "-m",
            "tests.session_child",
            "smallfs",
            str(mountpoint),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)

    assert "No space left on device" in out["full_degraded"]
    on_disk, unsaved, sent = out["full_on_disk"], out["full_unsaved"], out["full_sent"]
    assert on_disk + unsaved == sent  # nothing lost: what the disk refused is in memory
    assert on_disk and unsaved
    assert len(out["full_problems"]) <= 1  # at most the one line the full disk cut short

    assert "Read-only file system" in out["ro_create_degraded"]
    assert out["ro_create_unsaved"] == ["header", "user"]
    assert "Read-only file system" in out["ro_open_degraded"]
    assert out["ro_open_unsaved"] == 1
    assert "is open in another tui-agent process" in out["ro_second_open"]
    assert out["ro_loads"] == len(on_disk)


def test_an_immutable_folder_and_file_degrade_to_memory(store: SessionStore) -> None:
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.skip("chattr(1) is not installed")
    session_id = _session(store)
    path = store.resolve(session_id)
    writer = store.open_for_append(session_id)
    marked: list[Path] = []
    try:
        for target in (path, store.directory):
            if subprocess.run([chattr, "+i", str(target)], capture_output=True).returncode:
                pytest.skip(f"this file system does not support chattr +i ({target.name})")
            marked.append(target)
        writer.append(UserRecord(text="refused"))  # an open file turned immutable
        assert writer.degraded is not None and "Operation not permitted" in writer.degraded
        assert [r.text for r in writer.unsaved] == ["refused"]
        fresh = store.create(profile="p", protocol="p", model="m", workspace="/w")
        assert fresh.degraded is not None and "cannot create the session file" in fresh.degraded
        assert [r.type for r in fresh.unsaved] == ["header"]
        fresh.close()
    finally:
        for target in marked:
            subprocess.run([chattr, "-i", str(target)], check=True)
        writer.close()
    assert store.load(session_id).records == []


def test_an_unwritable_data_folder_does_not_stop_a_session(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = SessionStore(blocker / "sessions")
    with store.create(profile="p", protocol="p", model="m", workspace="/w") as writer:
        writer.append(UserRecord(text="hello"))
        assert writer.degraded is not None and "cannot create the session folder" in writer.degraded
        assert [r.type for r in writer.unsaved] == ["header", "user"]
    assert store.list() == []
