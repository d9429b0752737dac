"""Persistence and crashes (2/3), with real `tui-agent run` processes: a crash between an
approved call and its result, and two processes on one session.

A naive resume would re-run the approved call (or send the provider a call with no result,
which it refuses); a naive store would let the second process append to the first one's file.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.history import INTERRUPTED
from tui_agent.session import SessionLockedError, SessionStore, load_session
from tui_agent.session.records import UserRecord

from ..agent_helpers import sent_results
from ..fake_provider import FakeProvider, Reply, StallBeforeTerminal
from ..run_helpers import KEY, Home, alive, final, finish, types
from ..session_child import spawn
from ..support.waiting import poll
from ..tools_helpers import find_sleep, sleep_mark

CALL_ID = "toolu_S"
# The approved tool counts its runs in a file, then takes long enough to be killed mid-way.
# Found by its command line: in the command's PID namespace $$ is not a PID seen from here.
MARK = sleep_mark()
SLOW_COMMAND = f"echo ran >> runs.txt; echo 1 > pid.txt; exec sleep {MARK}"
NOT_YET = (OSError, ValueError)  # a file half written, a process half started


def _command_call(command: str) -> list[tuple[Any, ...]]:
    args = json.dumps({"command": command})
    return [("call", 0, CALL_ID, "run_command"), ("args", 0, args), ("close", 0)]


# -- a crash between an approved call and its result -------------------------------------------


@pytest.mark.parametrize("protocol", ["anthropic", "openai-responses"])
def test_crash_between_an_approved_call_and_its_result_gets_interrupted_and_never_reruns(
    protocol: str, home: Home
) -> None:
    runs = home.workspace / "runs.txt"
    with FakeProvider(protocol, api_key=KEY) as server:
        server.script(Reply(_command_call(SLOW_COMMAND)))
        process = home.start(server, "run the slow thing", approve="all")
        pid = None
        try:
            started = (home.workspace / "pid.txt").read_text
            poll(started, "the approved tool to start", ignoring=NOT_YET)
            pid = poll(lambda: (find_sleep(MARK) or (0, 0))[0], "the sleep", ignoring=NOT_YET)
            process.send_signal(signal.SIGKILL)  # no chance to clean up: as if the machine died
            assert finish(process).code == -signal.SIGKILL
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
            if pid is not None and alive(pid):
                os.kill(pid, signal.SIGKILL)  # SIGKILL cannot be handed on; we clean up
        (path,) = home.sessions()
        at_crash = [r for r in home.records() if not r["type"].startswith("checkpoint")]
        assert types(at_crash)[-3:] == ["assistant", "decision", "tool_start"]
        assert at_crash[-2]["decision"] == "approve"
        assert runs.read_text() == "ran\n"

        # Resumed with every call auto-approved: still nothing runs by itself.
        server.script(final(protocol, "Recovered."))
        done = home.run(server, "what happened?", "--session", path.stem, "--json")
        server.assert_all_consumed()
    assert done.code == 0, done.stderr
    events = done.events()
    assert [e["type"] for e in events if e["type"].startswith("tool_")] == []
    assert runs.read_text() == "ran\n"  # once, before the crash; never again
    # The provider accepted the call paired with its result (it checks), and the model was told.
    assert sent_results(protocol, server.requests[-1].json) == {CALL_ID: INTERRUPTED}
    records = [r for r in home.records() if not r["type"].startswith("checkpoint")]
    assert types(records)[-4:] == ["tool_start", "tool_result", "user", "assistant"]
    assert records[-3]["call_id"] == CALL_ID
    assert records[-3]["status"] == "interrupted"
    assert records[-3]["output"] == INTERRUPTED
    loaded = load_session(path)
    assert loaded.problems == []


# -- two processes on one session --------------------------------------------------------------


def test_two_processes_on_one_session_the_second_is_refused(home: Home) -> None:
    """Two real `tui-agent run` processes: the second gets a clear refusal and writes nothing;
    the first finishes and its file is intact."""
    with FakeProvider("openai-chat", api_key=KEY) as server:
        server.script(Reply([("text", "First here.")], stop="stop", faults=StallBeforeTerminal()))
        first = home.start(server, "hold the session")
        try:
            assert server.wait_stalled(15.0)
            (path,) = home.sessions()
            before = path.read_bytes()
            second = home.run(server, "me too", "--session", path.stem)
            assert second.code == 1
            assert second.stderr == (
                f"tui-agent run: session {path.stem} is open in another tui-agent process\n"
            )
            assert second.stdout == ""
            assert len(server.requests) == 1  # the second never reached the provider
            assert path.read_bytes() == before
            server.release()
            done = finish(first)
        finally:
            if first.poll() is None:
                first.kill()
                first.communicate()
    assert done.code == 0, done.stderr
    assert done.stdout == "First here.\n"
    loaded = load_session(path)
    assert loaded.problems == []
    assert [r.type for r in loaded.records] == ["user", "assistant"]


def test_two_processes_the_second_is_refused_and_a_killed_first_leaves_no_lock(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "sessions")
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        session_id = w.session_id
    holder = spawn("hold", str(store.directory), session_id)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "ready\n"
        with pytest.raises(SessionLockedError, match=f"session {session_id} is open in another"):
            store.open_for_append(session_id)
        other = spawn("try", str(store.directory), session_id)
        out, _ = other.communicate(timeout=30)
        assert json.loads(out) == {
            "locked": True,
            "message": f"session {session_id} is open in another tui-agent process",
        }
        with pytest.raises(SessionLockedError):
            store.resume(session_id)
        assert store.load(session_id).records == []  # reading is always allowed
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.communicate(timeout=10)
    _, writer = store.resume(session_id)  # the kernel dropped the dead process's lock
    with writer:
        writer.append(UserRecord(text="mine now"))
    assert [r.type for r in store.load(session_id).records] == ["user"]


def test_one_process_cannot_take_a_session_twice(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        session_id = w.session_id
    with store.open_for_append(session_id), pytest.raises(SessionLockedError):
        store.open_for_append(session_id)
    store.open_for_append(session_id).close()
