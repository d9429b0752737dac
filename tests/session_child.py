"""A separate process for the session tests: ``python -m tests.session_child MODE ARGS...``.

Modes: ``append DIR ID SEED`` (append records until killed), ``hold DIR ID`` (take the session
and wait), ``try DIR ID`` (try to take it, print the outcome as JSON), ``smallfs MOUNTPOINT``
(inside a private mount namespace: fill a tiny tmpfs, then make it read-only; print JSON).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tui_agent.session import SessionLockedError, SessionStore, load_session
from tui_agent.session.records import AssistantRecord, RawEvent, ToolResultRecord, UserRecord

ROOT = Path(__file__).resolve().parents[1]
SIZE_CAP = 40_000_000  # the appender stops growing the file here (and waits to be killed)


def _record(rng: random.Random, n: int) -> Any:
    kind = rng.choice(["user", "assistant", "tool_result"])
    size = rng.choice([10, 200, 3_000, 60_000, 600_000])
    body = "".join(rng.choice("abcdefgh ") for _ in range(64)) * (size // 64 + 1)
    if kind == "user":
        return UserRecord(ts=float(n + 1), text=f"{n}:" + body[:size])
    if kind == "tool_result":
        return ToolResultRecord(ts=float(n + 1), call_id=f"c{n}", name="t", output=body[:size])
    raw = [RawEvent(t=0.01, event="", data=json.dumps({"delta": body[:size]}))]
    return AssistantRecord(
        ts=float(n + 1),
        protocol="openai-chat",
        model="m",
        text=f"{n}",
        reasoning="",
        tool_calls=[],
        stop_reason="stop",
        usage=None,
        response_id=None,
        raw=raw,
    )


def append(directory: str, session_id: str, seed: str) -> None:
    rng = random.Random(int(seed))
    writer = SessionStore(Path(directory)).open_for_append(session_id)
    # The first record is made before "ready": the records' schemas are built at first use, and
    # on a loaded machine that alone outlasted the parent's shortest wait before its kill.
    record = _record(rng, 0)
    print("ready", flush=True)
    n = 0
    while writer.path.stat().st_size < SIZE_CAP:
        writer.append(record, sync=rng.random() < 0.2)
        n += 1
        record = _record(rng, n)
    time.sleep(60)


def hold(directory: str, session_id: str) -> None:
    SessionStore(Path(directory)).open_for_append(session_id)
    print("ready", flush=True)
    time.sleep(60)


def attempt(directory: str, session_id: str) -> None:
    try:
        SessionStore(Path(directory)).open_for_append(session_id).close()
    except SessionLockedError as exc:
        print(json.dumps({"locked": True, "message": str(exc)}))
    else:
        print(json.dumps({"locked": False, "message": ""}))


def smallfs(mountpoint: str) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mountpoint], check=True)
    out: dict[str, Any] = {}
    store = SessionStore(Path(mountpoint) / "sessions")
    writer = store.create(profile="p", protocol="openai-chat", model="m", workspace="/w")
    sent = [UserRecord(ts=float(i + 1), text=f"{i}:" + "x" * 3000) for i in range(60)]
    for record in sent:
        writer.append(record)  # must never raise
    out["full_degraded"] = writer.degraded
    out["full_unsaved"] = [r.text[:4] for r in writer.unsaved if isinstance(r, UserRecord)]
    out["full_sent"] = [r.text[:4] for r in sent]
    loaded = load_session(writer.path)
    out["full_on_disk"] = [r.text[:4] for r in loaded.records if isinstance(r, UserRecord)]
    out["full_problems"] = loaded.problems
    writer.close()

    subprocess.run(["mount", "-o", "remount,ro", mountpoint], check=True)
    fresh = store.create(profile="p", protocol="openai-chat", model="m", workspace="/w")
    fresh.append(UserRecord(text="kept in memory"))
    out["ro_create_degraded"] = fresh.degraded
    out["ro_create_unsaved"] = [r.type for r in fresh.unsaved]
    fresh.close()
    reopened = store.open_for_append(writer.session_id)
    reopened.append(UserRecord(text="also in memory"))
    out["ro_open_degraded"] = reopened.degraded
    out["ro_open_unsaved"] = len(reopened.unsaved)
    try:
        store.open_for_append(writer.session_id)
        out["ro_second_open"] = "allowed"
    except SessionLockedError as exc:
        out["ro_second_open"] = str(exc)
    reopened.close()
    out["ro_loads"] = len(store.load(writer.session_id).records)
    print(json.dumps(out))


def spawn(*args: str) -> subprocess.Popen[str]:
    """This module as a child process (from the repo root), pipes for its output."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.session_child", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


if __name__ == "__main__":
    modes = {"append": append, "hold": hold, "try": attempt, "smallfs": smallfs}
    modes[sys.argv[1]](*sys.argv[2:])
