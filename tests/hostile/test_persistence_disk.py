"""Persistence and crashes (3/3): a data dir that cannot be written warns the user and keeps the
session in memory.

Tests run as root, so chmod proves nothing. What refuses root for real: a tiny tmpfs (full:
ENOSPC; or mounted read-only: EROFS) in a private mount namespace (``unshare -m``), /dev/full
behind the session file, ``chattr +i`` (EPERM), a data path under a regular file (ENOTDIR).
A naive writer raises out of the loop (the conversation dies) or loses records silently.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tui_agent.session import SessionStore, load_session
from tui_agent.session.records import UserRecord
from tui_agent.ui.widgets.notice import Notice

from ..approval_prompt_app import screen_text
from ..fake_provider import ExpectToolResults, FakeProvider, Reply
from ..run_helpers import KEY, RUN_TIMEOUT_S, Done, Home, final, read_call
from ..ui_app_helpers import KEY as UI_KEY
from ..ui_app_helpers import (
    AppEnv,
    answer,
    running,
    send,
    wait_for,
    wait_idle_agent,
    wait_text,
)

ROOT = Path(__file__).resolve().parents[2]
IN_MEMORY = "This session is kept in memory only and will be lost when tui-agent exits."
BIG_TEXT = "Reading the notes now. " * 1000  # ~23 KB: more than the tiny disk has left


def _unshare_flags() -> list[str]:
    return ["-m"] if os.geteuid() == 0 else ["-r", "-m"]


@functools.cache
def _tmpfs_refusal() -> str | None:
    """Why a tiny tmpfs cannot be mounted here, or None when it can."""
    if shutil.which("unshare") is None:
        return "unshare(1) is not installed"
    with tempfile.TemporaryDirectory() as mountpoint:
        probe = subprocess.run(
            [
                "unshare",
                *_unshare_flags(),
                "mount",
                "-t",
                "tmpfs",
                "-o",
                "size=64k",
                "t",
                mountpoint,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    if probe.returncode != 0:
        return f"cannot mount a tmpfs in a private mount namespace: {probe.stderr.strip()}"
    return None


@pytest.fixture
def tmpfs() -> None:
    """Skips, with the reason, where no tiny file system can be made."""
    reason = _tmpfs_refusal()
    if reason is not None:
        pytest.skip(reason)


# Mount a tmpfs over the data dir ($1 mount options; $3 bytes of filler, so the disk is nearly
# full), run the command, then copy out what reached the disk (to $4): the mount dies with us.
_MOUNTED = r"""
opts=$1 data=$2 fill=$3 out=$4
shift 4
mount -t tmpfs -o "$opts" tmpfs "$data" || exit 99
if [ "$fill" -gt 0 ]; then
    mkdir -p "$data/tui-agent/sessions" && head -c "$fill" /dev/zero > "$data/filler" || exit 98
fi
"$@"
code=$?
cp "$data"/tui-agent/sessions/*.jsonl "$out" 2>/dev/null
exit $code
"""


def _run_on_tmpfs(home: Home, server: FakeProvider, options: str, fill: int) -> Done:
    saved = home.root / "saved"
    saved.mkdir()
    argv = home.argv(server, "read notes.txt", "--json", approve="read-only")
    done = subprocess.run(
        [
            "unshare",
            *_unshare_flags(),
            "sh",
            "-c",
            _MOUNTED,
            "sh",
            options,
            str(home.data),
            str(fill),
            str(saved),
            *argv,
        ],
        cwd=home.workspace,
        env=home.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode not in (98, 99), done.stderr
    return Done(done.returncode, done.stdout, done.stderr, 0.0)


def _script_two_steps(server: FakeProvider, home: Home) -> None:
    """A read_file call, then an answer that needs the call and its result (kept in memory)."""
    (home.workspace / "notes.txt").write_text("hi there\n")
    server.script(
        _with_text(read_call("call_R"), BIG_TEXT),
        final(server.protocol, "The notes say hi.", ExpectToolResults({"call_R": "hi there"})),
    )


def _with_text(ops: list[tuple[Any, ...]], text: str) -> Reply:
    return Reply([("text", text), *ops])


def _warnings(events: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return [
        (i, e["text"])
        for i, e in enumerate(events)
        if e["type"] == "notice" and IN_MEMORY in e["text"]
    ]


@pytest.mark.usefixtures("tmpfs")
@pytest.mark.heavy
def test_a_full_disk_mid_session_warns_at_once_and_the_run_goes_on_in_memory(
    tmp_path: Path,
) -> None:
    home = Home(tmp_path)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        _script_two_steps(server, home)
        done = _run_on_tmpfs(home, server, "size=64k", fill=56 * 1024)
        server.assert_all_consumed()  # the second request carried the call and its result
    assert done.code == 0, done.stderr
    events = done.events()
    told = _warnings(events)
    assert told, done.stdout
    at, text = told[0]
    assert "No space left on device" in text
    first_tool = next(i for i, e in enumerate(events) if e["type"] == "tool_started")
    assert at < first_tool  # told when it happened, not only at the end
    assert events[at]["level"] == "warning"
    assert [e["type"] for e in events].count("loop_ended") == 1
    assert json.dumps("The notes say hi.")[1:-1] in done.stdout
    # What fitted on the disk is intact; the rest was kept in memory, never half-merged.
    (path,) = (tmp_path / "saved").glob("*.jsonl")
    loaded = load_session(path)
    assert [r.type for r in loaded.records] == ["user"]
    assert len(loaded.problems) <= 1


@pytest.mark.usefixtures("tmpfs")
@pytest.mark.heavy
def test_a_read_only_data_dir_warns_and_the_run_goes_on_in_memory(tmp_path: Path) -> None:
    home = Home(tmp_path)
    with FakeProvider("openai-chat", api_key=KEY) as server:
        _script_two_steps(server, home)
        done = _run_on_tmpfs(home, server, "ro,size=64k", fill=0)
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    told = _warnings(done.events())
    assert told and all("Read-only file system" in text for _, text in told)
    assert all(done.events()[at]["level"] == "warning" for at, _ in told)
    assert len(told) == 1  # said once, when it happened (it was printed twice before)
    assert list((tmp_path / "saved").iterdir()) == []


@pytest.mark.usefixtures("tmpfs")
def test_a_small_file_system_that_fills_up_then_turns_read_only(tmp_path: Path) -> None:
    """The writer on a real 64 KB tmpfs: nothing sent is lost (on disk or in memory)."""
    mountpoint = tmp_path / "mnt"
    mountpoint.mkdir()
    done = subprocess.run(
        [
            "unshare",
            *_unshare_flags(),
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


def test_a_full_device_behind_the_session_file_degrades_to_memory(tmp_path: Path) -> None:
    # /dev/full refuses every write with ENOSPC, for any user, root included.
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    store = SessionStore(tmp_path / "sessions")
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        session_id = w.session_id
    path = store.resolve(session_id)
    path.unlink()
    path.symlink_to("/dev/full")
    with store.open_for_append(session_id) as writer:
        kept = [writer.append(UserRecord(text=f"m{i}")) for i in range(3)]
        assert writer.degraded is not None
        assert "No space left on device" in writer.degraded
        assert writer.degraded.endswith(IN_MEMORY)
        assert writer.unsaved == kept


@contextlib.contextmanager
def immutable(*targets: Path) -> Iterator[None]:
    """``chattr +i``: even root cannot write; undone on the way out."""
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.skip("chattr(1) is not installed")
    marked: list[Path] = []
    try:
        for target in targets:
            if subprocess.run([chattr, "+i", str(target)], capture_output=True).returncode:
                pytest.skip(f"this file system does not support chattr +i ({target.name})")
            marked.append(target)
        yield
    finally:
        for target in marked:
            subprocess.run([chattr, "-i", str(target)], check=True)


def test_an_immutable_folder_and_file_degrade_to_memory(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        session_id = w.session_id
    path = store.resolve(session_id)
    with store.open_for_append(session_id) as writer, immutable(path, store.directory):
        writer.append(UserRecord(text="refused"))  # an open file turned immutable
        assert writer.degraded is not None and "Operation not permitted" in writer.degraded
        assert [r.text for r in writer.unsaved] == ["refused"]
        with store.create(profile="p", protocol="p", model="m", workspace="/w") as fresh:
            assert fresh.degraded is not None
            assert "cannot create the session file" in fresh.degraded
            assert [r.type for r in fresh.unsaved] == ["header"]
    assert store.load(session_id).records == []


def test_a_data_dir_under_a_file_does_not_stop_a_session(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = SessionStore(blocker / "sessions")
    with store.create(profile="p", protocol="p", model="m", workspace="/w") as writer:
        writer.append(UserRecord(text="hello"))
        assert writer.degraded is not None and "cannot create the session folder" in writer.degraded
        assert [r.type for r in writer.unsaved] == ["header", "user"]
    assert store.list() == []


# -- the TUI: the warning is on screen, and the conversation goes on in memory ------------------


def _shown_warnings(app: Any) -> list[Notice]:
    return [n for n in app.query(Notice) if IN_MEMORY in n.text]


@pytest.mark.heavy
async def test_tui_a_data_dir_that_cannot_be_written_warns_and_keeps_the_session_in_memory(
    env: AppEnv,
) -> None:
    with FakeProvider("openai-chat", api_key=UI_KEY) as server, immutable(env.data):
        server.script(answer("openai-chat", "One."), answer("openai-chat", "Two."))
        async with running(server, env) as (app, pilot):
            await wait_for(pilot, lambda: _shown_warnings(app), "the warning")
            (notice,) = _shown_warnings(app)
            assert "kept in memory only" in screen_text(app)
            assert "Operation not permitted" in notice.text
            assert notice.has_class("-warning")  # a warning, not an info line
            await send(pilot, "first question")
            await wait_text(pilot, "One.")
            await wait_idle_agent(pilot)
            await send(pilot, "second question")
            await wait_text(pilot, "Two.")
            await wait_idle_agent(pilot)
            assert len(_shown_warnings(app)) == 1
        sent = json.dumps(server.requests[1].json)
        assert "first question" in sent and "One." in sent  # the next turn has the history
    assert env.sessions() == []


async def test_tui_a_disk_that_refuses_mid_session_warns_at_once_and_the_chat_goes_on(
    env: AppEnv,
) -> None:
    with FakeProvider("openai-chat", api_key=UI_KEY) as server:
        server.script(*(answer("openai-chat", t) for t in ("One.", "Two.", "Three.")))
        async with running(server, env) as (app, pilot):
            await send(pilot, "first question")
            await wait_text(pilot, "One.")
            await wait_idle_agent(pilot)
            assert _shown_warnings(app) == []
            (path,) = env.sessions()
            with immutable(path):
                await send(pilot, "second question")
                # The user record was refused: told now, in the transcript.
                await wait_for(pilot, lambda: _shown_warnings(app), "the warning")
                await wait_text(pilot, "Two.")
                await wait_idle_agent(pilot)
                (notice,) = _shown_warnings(app)
                assert notice.level == "warning"
                assert "Operation not permitted" in notice.text
                await send(pilot, "third question")
                await wait_text(pilot, "Three.")
                await wait_idle_agent(pilot)
                assert len(_shown_warnings(app)) == 1  # once, not per record
        sent = json.dumps(server.requests[2].json)
        for earlier in ("first question", "One.", "second question", "Two."):
            assert earlier in sent
    assert [r["type"] for r in env.records()] == ["header", "user", "assistant"]
