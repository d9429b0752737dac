"""Persistence and crashes (1/3): kill -9 during appends at random points, and what a crash or a
damaged disk leaves in a session file (NUL runs, a BOM, invalid UTF-8, torn lines).

Every complete record loads, every damaged line is reported by number and costs no line after
it, and the next append starts on a fresh line. A naive loader (``json.loads`` per line) or a
writer that appends straight after a torn tail fails these.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_agent.session import SessionStore, load_session
from tui_agent.session.codec import BOM, decode_line
from tui_agent.session.errors import SessionError
from tui_agent.session.records import HeaderRecord, UserRecord

from ..session_child import spawn
from ..session_samples import every_record

KILL_ROUNDS = 6
KILL_BUDGET_S = 12.0  # rounds stop early on a slow machine; at least two always run
TORN_AT_END = "torn record at the end of the file skipped (an interrupted write)"


def _ready(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line == "ready\n", line + (proc.stderr.read() if proc.stderr else "")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    yield SessionStore(tmp_path / "sessions")


def _session(store: SessionStore) -> str:
    with store.create(profile="p", protocol="openai-chat", model="m", workspace="/w") as w:
        return w.session_id


# -- kill -9 during appends --------------------------------------------------------------------


@pytest.mark.heavy
def test_kill_9_during_appends_at_random_points(store: SessionStore) -> None:
    """A real SIGKILL of a process appending records of 10 B to 600 KB, after a random delay.

    Every complete record loads; a torn tail (left by the kill, or else cut as a power loss
    would) is reported as such; the next append starts on a fresh line and loads too.
    """
    rng = random.Random(20240607)
    began = time.monotonic()
    for round_ in range(KILL_ROUNDS):
        if round_ >= 2 and time.monotonic() - began > KILL_BUDGET_S:
            break
        session_id = _session(store)
        proc = spawn("append", str(store.directory), session_id, str(rng.randrange(10**6)))
        try:
            _ready(proc)
            time.sleep(rng.uniform(0.02, 0.3))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)
        assert proc.returncode == -signal.SIGKILL

        path = store.resolve(session_id)
        data = path.read_bytes()
        complete = data.split(b"\n")[:-1]
        for line in complete:  # every complete line is a whole record
            decode_line(line)
        loaded = load_session(path)
        assert len(loaded.records) == len(complete) - 1, round_
        if data.endswith(b"\n"):
            assert loaded.problems == []
            if len(complete) < 2:
                # Killed before its first record (a loaded machine): the header, written here
                # before the child started, is all there is, and it is not the child's to tear.
                continue
            # What a power cut would leave: the last record only partly on disk.
            last = data.rstrip(b"\n").rfind(b"\n") + 1
            os.truncate(path, rng.randrange(last + 1, len(data) - 1))
            complete = complete[:-1]
        torn_at = len(complete) + 1
        loaded = load_session(path)
        assert len(loaded.records) == len(complete) - 1
        assert loaded.problems == [f"line {torn_at}: {TORN_AT_END}"]

        with store.open_for_append(session_id) as writer:
            writer.append(UserRecord(text=f"resumed {round_}"))
        loaded = load_session(path)
        assert loaded.records[-1] == UserRecord(ts=loaded.records[-1].ts, text=f"resumed {round_}")
        assert len(loaded.records) == len(complete)  # the torn tail did not swallow it
        assert loaded.problems == [f"line {torn_at}: torn or corrupt record skipped"]
        path.unlink()


# -- NUL runs, BOM, invalid UTF-8 --------------------------------------------------------------


def _lines() -> list[bytes]:
    return [r.model_dump_json().encode() for r in every_record()]


def _write(tmp_path: Path, lines: list[bytes], end: bytes = b"\n") -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + end)
    return path


def test_a_torn_tail_is_reported_and_the_next_append_starts_on_a_fresh_line(
    tmp_path: Path,
) -> None:
    """The same, at one chosen point: a record cut 40 bytes in, with no newline after it."""
    lines = _lines()
    path = _write(tmp_path, [*lines, lines[2][:40]], end=b"")
    loaded = load_session(path)
    assert loaded.records == every_record()[1:]
    assert loaded.problems == [f"line {len(lines) + 1}: {TORN_AT_END}"]
    with SessionStore(tmp_path).open_for_append(str(path)) as writer:
        writer.append(UserRecord(ts=99.0, text="after the crash"))
    loaded = load_session(path)
    assert loaded.records == [*every_record()[1:], UserRecord(ts=99.0, text="after the crash")]
    assert loaded.problems == [f"line {len(lines) + 1}: torn or corrupt record skipped"]


def test_nul_runs_and_a_bom_around_records_are_survived(tmp_path: Path) -> None:
    lines = _lines()
    damaged = [
        BOM + lines[0],
        b"",
        lines[1] + b"\r",
        b"\x00\x00\x00" + lines[2],  # zeros where a crash left unflushed blocks, then a record
        b"   ",
        lines[3] + b"\x00\x00" + lines[4],  # a NUL run joining two records
        BOM + BOM + lines[5],  # a BOM in the middle of the file, twice
        *lines[6:],
    ]
    loaded = load_session(_write(tmp_path, damaged))
    assert loaded.records == every_record()[1:]
    assert loaded.problems == ["line 4: NUL bytes skipped", "line 6: NUL bytes skipped"]


def test_invalid_utf8_inside_a_record_is_replaced_and_reported(tmp_path: Path) -> None:
    lines = _lines()
    bad = UserRecord(ts=2.0, text="caf\u00e9 XY").model_dump_json().encode()
    bad = bad.replace(b"XY", b"\xff\xfe")
    loaded = load_session(_write(tmp_path, [lines[0], bad, *lines[2:]]))
    assert loaded.records[0] == UserRecord(ts=2.0, text="caf\u00e9 \ufffd\ufffd")
    assert loaded.problems == ["line 2: invalid UTF-8 replaced"]


def test_a_nul_tail_left_by_a_crash_is_skipped_and_the_next_append_starts_on_a_fresh_line(
    tmp_path: Path,
) -> None:
    lines = _lines()
    path = _write(tmp_path, lines, end=b"\n" + b"\x00" * 8192)  # no newline after the zeros
    with SessionStore(tmp_path).open_for_append(str(path)) as writer:
        writer.append(UserRecord(ts=99.0, text="after"))
    loaded = load_session(path)
    assert loaded.records == [*every_record()[1:], UserRecord(ts=99.0, text="after")]
    assert loaded.problems == [f"line {len(lines) + 1}: NUL bytes skipped"]


# One damaged line of each kind, and the problem the loader must report for it.
_GARBAGE = st.binary(max_size=40).map(lambda b: b"\xff" + b.replace(b"\n", b"").replace(b"\0", b""))
_DAMAGE = st.one_of(
    st.tuples(st.just("nul-run"), st.integers(1, 9000).map(lambda n: b"\x00" * n)),
    st.tuples(st.just("invalid-utf8"), _GARBAGE),
    st.tuples(st.just("torn"), st.integers(1, 10_000)),
)
_RECORD = st.tuples(
    st.just("record"),
    st.text(max_size=30),
    st.sampled_from(["", "bom", "nul-before", "invalid-utf8-inside", "joined-by-nuls"]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(items=st.lists(st.one_of(_RECORD, _DAMAGE), max_size=25))
def test_any_mix_of_nul_runs_bom_invalid_utf8_and_torn_lines_loses_no_record(
    tmp_path: Path, items: list[tuple[Any, ...]]
) -> None:
    header = HeaderRecord(
        ts=1.0, id="s", created=1.0, profile="p", protocol="openai-chat", model="m", workspace="/w"
    )
    lines = [header.model_dump_json().encode()]
    expected: list[UserRecord] = []
    problems: list[str] = []
    clean_before = False  # the line before holds one undamaged record
    for item in items:
        number = len(lines) + 1
        joined = item[0] == "record" and item[2] == "joined-by-nuls" and clean_before
        clean_before = item[0] == "record" and item[2] in ("", "bom") and not joined
        if item[0] == "record":
            _, text, how = item
            record = UserRecord(ts=float(number), text=f"{text}<X>")
            line = record.model_dump_json().encode()
            if how == "invalid-utf8-inside":
                line = line.replace(b"<X>", b"<\xc3>")  # a lone lead byte
                record = UserRecord(ts=float(number), text=f"{text}<\ufffd>")
                problems.append(f"line {number}: invalid UTF-8 replaced")
            elif how == "bom":
                line = BOM + line
            elif how == "nul-before":
                line = b"\x00" * 700 + line
                problems.append(f"line {number}: NUL bytes skipped")
            if joined:  # zeros, then this record, on the line of the one before
                record = UserRecord(ts=float(number - 1), text=record.text)
                line = record.model_dump_json().encode()
                lines[-1] += b"\x00" * 300 + line
                problems.append(f"line {number - 1}: NUL bytes skipped")
            else:
                lines.append(line)
            expected.append(record)
        elif item[0] == "nul-run":
            lines.append(item[1])
            problems.append(f"line {number}: NUL bytes skipped")
        elif item[0] == "invalid-utf8":
            lines.append(item[1])
            problems.append(f"line {number}: torn or corrupt record skipped")
        else:  # a record cut short, with the next line written after it
            whole = UserRecord(ts=1.0, text="x" * 50).model_dump_json().encode()
            lines.append(whole[: 1 + int(item[1]) % (len(whole) - 1)])
            problems.append(f"line {number}: torn or corrupt record skipped")
    loaded = load_session(_write(tmp_path, lines))
    assert loaded.header == header
    assert loaded.records == expected
    assert loaded.problems == problems


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_session_path_that_is_a_device_is_refused_not_read_forever(
    tmp_path: Path, device: str
) -> None:
    link = tmp_path / "session.jsonl"
    link.symlink_to(device)
    with pytest.raises(SessionError, match="not a regular file"):
        load_session(link)


def test_a_session_path_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(SessionError, match="not a regular file"):
        load_session(fifo)


def test_listing_sessions_skips_devices_and_fifos_among_them(store: SessionStore) -> None:
    good = _session(store)
    (store.directory / "zeros.jsonl").symlink_to("/dev/zero")
    os.mkfifo(store.directory / "pipe.jsonl")
    assert [s.id for s in store.list()] == [good]
